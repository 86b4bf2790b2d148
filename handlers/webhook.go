package handlers

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// attemptsShown is how many of an endpoint's newest delivery attempts its page lists.
const attemptsShown = 50

// endpointHealth reads an endpoint's health from its newest attempts, newest first; more says
// older attempts exist beyond them.
func endpointHealth(attempts []payouts.WebhookAttempt, more bool) pages.EndpointHealth {
	hl := pages.EndpointHealth{Window: payouts.HealthWindow, Attempts: len(attempts), Older: more}
	for i := range attempts {
		a := &attempts[i]
		switch {
		case a.Succeeded():
			hl.Succeeded++
			if hl.LastSuccess == nil {
				hl.LastSuccess = a
			}
		case hl.LastError == nil:
			hl.LastError = a
		}
	}
	return hl
}

// healthOf asks the service for the endpoint's newest attempts and reads its health from them.
func (h *Handlers) healthOf(ctx context.Context, endpointID string) (pages.EndpointHealth, []payouts.WebhookAttempt, error) {
	list, err := h.payouts.ListWebhookAttempts(ctx, endpointID, "", payouts.Page{Limit: payouts.HealthWindow})
	if err != nil {
		return pages.EndpointHealth{}, nil, err
	}
	return endpointHealth(list.Data, list.HasMore), list.Data, nil
}

// webhooks lists the app's webhook endpoints with the form to add one.
func (h *Handlers) webhooks(c *fiber.Ctx) error {
	return h.renderWebhooks(c, fiber.StatusOK, components.Form{Values: map[string]string{}}, nil)
}

func (h *Handlers) renderWebhooks(c *fiber.Ctx, status int, form components.Form, created *payouts.WebhookEndpoint) error {
	if done, err := h.unavailable(c, payouts.ExtWebhookEndpoints, "Webhooks", "Webhook endpoints"); done || err != nil {
		return err
	}
	list, err := h.payouts.ListWebhookEndpoints(c.UserContext())
	if err != nil {
		return err
	}
	health := make([]pages.EndpointHealth, len(list.Data))
	for i, e := range list.Data {
		if health[i], _, err = h.healthOf(c.UserContext(), e.ID); err != nil {
			return err
		}
	}
	p := pages.WebhooksProps{Endpoints: list.Data, Health: health, Form: form, Created: created,
		CanManage: h.can(c, web.PermWebhooksManage)}
	return h.web.Render(c, status, web.Page{Title: "Webhooks", Content: pages.Webhooks(h.web.View(c), p)})
}

// eventTypesOf reads a comma-separated list of event types; blank is every type.
func eventTypesOf(s string) []payouts.EventType {
	var out []payouts.EventType
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, payouts.EventType(t))
		}
	}
	return out
}

// createWebhook adds an endpoint and shows its secret, once.
func (h *Handlers) createWebhook(c *fiber.Ctx) error {
	form := formOf(c, "url", "event_types", "description")
	e, err := h.payouts.CreateWebhookEndpoint(c.UserContext(), payouts.CreateWebhookEndpointRequest{
		URL: strings.TrimSpace(form.Value("url")), EventTypes: eventTypesOf(form.Value("event_types")),
		Description: strings.TrimSpace(form.Value("description"))})
	if formFailed(err, &form) {
		return h.renderWebhooks(c, fiber.StatusUnprocessableEntity, form, nil)
	}
	if err != nil {
		return err
	}
	h.audit(c, "webhook.create", "webhook", e.ID, e.URL)
	// Rendered rather than redirected: the secret must not sit in a flash in the session table.
	return h.renderWebhooks(c, fiber.StatusCreated, components.Form{Values: map[string]string{}}, e)
}

// webhook shows an endpoint with its newest delivery attempts.
func (h *Handlers) webhook(c *fiber.Ctx) error {
	return h.renderWebhook(c, fiber.StatusOK, components.Form{Values: map[string]string{}}, "")
}

func (h *Handlers) renderWebhook(c *fiber.Ctx, status int, form components.Form, newSecret string) error {
	if done, err := h.unavailable(c, payouts.ExtWebhookEndpoints, "Webhook", "Webhook endpoints"); done || err != nil {
		return err
	}
	ctx, id := c.UserContext(), c.Params("id")
	e, err := h.payouts.GetWebhookEndpoint(ctx, id)
	if err != nil {
		return err
	}
	health, attempts, err := h.healthOf(ctx, id)
	if err != nil {
		return err
	}
	p := pages.WebhookProps{Endpoint: *e, Health: health, Attempts: attempts[:min(len(attempts), attemptsShown)],
		Form: form, NewSecret: newSecret,
		CanManage: h.can(c, web.PermWebhooksManage)}
	return h.web.Render(c, status, web.Page{Title: "Webhook", Content: pages.Webhook(h.web.View(c), p)})
}

// setWebhookEnabled turns deliveries to an endpoint on or off.
func (h *Handlers) setWebhookEnabled(c *fiber.Ctx) error {
	id, enabled := c.Params("id"), c.FormValue("enabled") == "true"
	e, err := h.payouts.UpdateWebhookEndpoint(c.UserContext(), id, payouts.UpdateWebhookEndpointRequest{Enabled: &enabled})
	if err != nil {
		return err
	}
	action, done := "webhook.disable", "Disabled the endpoint."
	if enabled {
		action, done = "webhook.enable", "Enabled the endpoint."
	}
	h.audit(c, action, "webhook", e.ID, e.URL)
	web.Flash(c, web.FlashSuccess, done)
	return web.Redirect(c, "/webhooks/"+e.ID)
}

// rotateWebhook gives an endpoint a new secret and shows it, once.
func (h *Handlers) rotateWebhook(c *fiber.Ctx) error {
	e, err := h.payouts.RotateWebhookSecret(c.UserContext(), c.Params("id"), payouts.RotateWebhookSecretRequest{})
	if err != nil {
		return err
	}
	h.audit(c, "webhook.rotate", "webhook", e.ID, e.URL)
	return h.renderWebhook(c, fiber.StatusOK, components.Form{Values: map[string]string{}}, e.Secret)
}

// testWebhook queues a webhook.test event for the endpoint.
func (h *Handlers) testWebhook(c *fiber.Ctx) error {
	id := c.Params("id")
	if _, err := h.payouts.SendTestWebhook(c.UserContext(), id); err != nil {
		return err
	}
	h.audit(c, "webhook.test", "webhook", id, "")
	web.Flash(c, web.FlashSuccess, "Queued a test event.")
	return web.Redirect(c, "/webhooks/"+id)
}

// resendWebhooks queues one event again (the Resend of an attempt's row, or its id typed), or
// every failed one since a time (UTC). The service refuses an event whose delivery is still
// pending; the page says so.
func (h *Handlers) resendWebhooks(c *fiber.Ctx) error {
	id := c.Params("id")
	form := formOf(c, "event_id", "since")
	req := payouts.ResendWebhooksRequest{EventID: strings.TrimSpace(form.Value("event_id"))}
	if s := form.Value("since"); s != "" {
		t, err := time.Parse("2006-01-02T15:04", s)
		if err != nil {
			form.Errors = map[string]string{"since": "must be a date and time"}
			return h.renderWebhook(c, fiber.StatusUnprocessableEntity, form, "")
		}
		since := payouts.NewTime(t)
		req.Since = &since
	}
	n, err := h.payouts.ResendWebhooks(c.UserContext(), id, req)
	if formFailed(err, &form) {
		return h.renderWebhook(c, fiber.StatusUnprocessableEntity, form, "")
	}
	if err != nil {
		return err
	}
	detail, done := strconv.Itoa(n)+" deliveries since "+form.Value("since")+" UTC", "Queued "+strconv.Itoa(n)+" deliveries again."
	if req.EventID != "" {
		detail, done = "event "+req.EventID, "Queued event "+req.EventID+" again."
	}
	h.audit(c, "webhook.resend", "webhook", id, detail)
	web.Flash(c, web.FlashSuccess, done)
	return web.Redirect(c, "/webhooks/"+id)
}

// objectEvents lists the events of the object the path names, for its page, once find has
// found the id as the kind the path names. The route's permission covers that kind only: without
// the check, a role that may not read transfers would read a payout's events by putting its id in
// a URL of a kind it may read (/payout-links/<payout id>/events).
func (h *Handlers) objectEvents(find func(ctx context.Context, id string) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := c.Params("id")
		if err := find(c.UserContext(), id); err != nil {
			return err
		}
		if offered, err := h.offers(c.UserContext(), payouts.ExtEvents); err != nil || !offered {
			if err != nil {
				return err
			}
			note := pages.ObjectEventsUnavailable(notOffered("An object's events"))
			return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Events", Content: note, Fragment: note})
		}
		list, err := h.payouts.ListEvents(c.UserContext(), payouts.Page{Limit: payouts.MaxLimit},
			payouts.EventFilter{ObjectID: id})
		if err != nil {
			return err
		}
		events := pages.ObjectEvents(h.web.View(c), list.Data)
		return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Events", Content: events, Fragment: events})
	}
}

// found turns a client's Get of one kind into a check that the id is of that kind.
func found[T any](get func(ctx context.Context, id string) (T, error)) func(ctx context.Context, id string) error {
	return func(ctx context.Context, id string) error {
		_, err := get(ctx, id)
		return err
	}
}
