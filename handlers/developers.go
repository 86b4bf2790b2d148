package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

const developersTitle = "Developers"

// developers lists the app's API keys, with the form to make one and how to call the API.
func (h *Handlers) developers(c *fiber.Ctx) error {
	return h.renderDevelopers(c, fiber.StatusOK, components.Form{Values: map[string]string{}}, nil)
}

// renderDevelopers renders the page; created, right after a key was made, carries its secret,
// shown this once (rendered, never redirected: a secret must not sit in a flash in the session
// table).
func (h *Handlers) renderDevelopers(c *fiber.Ctx, status int, form components.Form, created *payouts.APIKey) error {
	offered, err := h.offers(c.UserContext(), payouts.ExtAPIKeys)
	if err != nil {
		return err
	}
	p := pages.DevelopersProps{APIURL: h.apiURL, ClientID: h.clientID, AppID: h.appID, Offered: offered, Form: form,
		Created: created}
	if offered && h.appID != "" {
		list, err := h.payouts.ListAPIKeys(c.UserContext(), h.appID)
		if err != nil {
			return err
		}
		p.Keys = list.Data
	}
	return h.web.Render(c, status, web.Page{Title: developersTitle, Content: pages.Developers(h.web.View(c), p)})
}

// createAPIKey makes a key of the app, or one that replaces another (which then works a day
// more), and shows its secret once.
func (h *Handlers) createAPIKey(c *fiber.Ctx) error {
	form := formOf(c, "name", "replaces")
	op := h.operatorOf(c)
	k, err := h.payouts.CreateAPIKey(c.UserContext(), h.appID, payouts.CreateAPIKeyRequest{
		Name: strings.TrimSpace(form.Value("name")), CreatedBy: op.Email, Replaces: form.Value("replaces")})
	if formFailed(err, &form) {
		return h.renderDevelopers(c, fiber.StatusUnprocessableEntity, form, nil)
	}
	if err != nil {
		return err
	}
	detail := k.Name + " …" + k.Last4
	if r := form.Value("replaces"); r != "" {
		detail += ", replacing key " + r + " (it works 24 hours more)"
	}
	h.audit(c, "api_key.create", "api_key", k.ID, detail)
	return h.renderDevelopers(c, fiber.StatusCreated, components.Form{Values: map[string]string{}}, k)
}

// apiKeyOf finds a key of the app by id.
func (h *Handlers) apiKeyOf(c *fiber.Ctx, id string) (*payouts.APIKey, error) {
	list, err := h.payouts.ListAPIKeys(c.UserContext(), h.appID)
	if err != nil {
		return nil, err
	}
	for i := range list.Data {
		if list.Data[i].ID == id {
			return &list.Data[i], nil
		}
	}
	return nil, payouts.Errorf(payouts.ENotFound, "No such API key.")
}

// confirmRevokeAPIKey asks before a key is revoked, saying what it stops.
func (h *Handlers) confirmRevokeAPIKey(c *fiber.Ctx) error {
	offered, err := h.offers(c.UserContext(), payouts.ExtAPIKeys)
	if err != nil {
		return err
	}
	if !offered { // the Developers page says where this API's keys are managed
		return h.developers(c)
	}
	k, err := h.apiKeyOf(c, c.Params("id"))
	if err != nil {
		return err
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Revoke " + k.Name,
		Content: pages.APIKeyRevoke(h.web.View(c), pages.APIKeyRevokeProps{Key: *k})})
}

// revokeAPIKey stops a key at once. The service refuses the dashboard's own key.
func (h *Handlers) revokeAPIKey(c *fiber.Ctx) error {
	k, err := h.payouts.RevokeAPIKey(c.UserContext(), h.appID, c.Params("id"))
	var form components.Form
	if formFailed(err, &form) {
		k, gerr := h.apiKeyOf(c, c.Params("id"))
		if gerr != nil {
			return gerr
		}
		return h.web.Render(c, fiber.StatusUnprocessableEntity, web.Page{Title: "Revoke " + k.Name,
			Content: pages.APIKeyRevoke(h.web.View(c), pages.APIKeyRevokeProps{Key: *k, Problem: form.Message})})
	}
	if err != nil {
		return err
	}
	h.audit(c, "api_key.revoke", "api_key", k.ID, k.Name+" …"+k.Last4)
	web.Flash(c, web.FlashSuccess, "Revoked "+k.Name+": it is refused from now on.")
	return web.Redirect(c, "/developers")
}
