package handlers

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// eventsShown is how many events a page of the events list holds.
const eventsShown = 50

// events lists the app's events, newest first, across every object: narrowed to a type, to the
// events of a user (picked in the user search box) or of one object (from an object's link), and
// to the days between two dates in the operator's time zone. It needs the service's events
// extension; the public API has none, and the page says so. The dates need the event-filters
// extension too: a service without it would ignore them and list every event as if filtered,
// so then the page leaves the dates out and says why.
func (h *Handlers) events(c *fiber.Ctx) error {
	if done, err := h.unavailable(c, payouts.ExtEvents, "Events", "The app's events"); done || err != nil {
		return err
	}
	dates, err := h.offers(c.UserContext(), payouts.ExtEventFilters)
	if err != nil {
		return err
	}
	fields := []string{"type", "object_id", "user", "user_id"}
	if dates {
		fields = append(fields, "from", "to", "tz")
	}
	form := components.Form{Values: map[string]string{}}
	for _, name := range fields {
		if v := strings.TrimSpace(c.Query(name)); v != "" {
			form.Values[name] = v
		}
	}
	filter := payouts.EventFilter{Type: payouts.EventType(form.Value("type")), ObjectID: form.Value("object_id")}
	if filter.Type != "" && !filter.Type.Valid() {
		addProblem(&form, "type", "choose an event type from the list")
	}
	filter.CreatedFrom, filter.CreatedTo = dayRangeOf(&form, h.zoneOf(c, &form))
	if userID := h.userOfFilter(c, &form); userID != "" {
		filter.ObjectID = userID
	}
	p := pages.EventsProps{Filter: form, Types: options("Any event", payouts.EventTypes, func(t payouts.EventType) string { return string(t) }),
		UserSearch: filterPicker(form), Dates: dates, Filtered: formNarrows(form), Problem: formProblems(form)}
	if !dates {
		p.Notes = []string{notOffered("Filtering events by date")}
	}
	render := func() error {
		view := h.web.View(c)
		return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Events", Content: pages.Events(view, p), Fragment: pages.EventsTable(view, p)})
	}
	if p.Problem != "" {
		// A filter that cannot be read lists nothing rather than more than was asked for.
		return render()
	}
	page := pageOf(c, eventsShown)
	list, err := h.payouts.ListEvents(c.UserContext(), page, filter)
	if err != nil {
		return err
	}
	for _, e := range list.Data {
		kind := eventObjectType(e.Type)
		p.Events = append(p.Events, pages.EventRow{ID: e.ID, Type: string(e.Type), Created: e.Created.Time,
			ObjectID: e.ObjectID, ObjectType: kind, ObjectURL: h.objectURL(c, kind, e.ObjectID)})
	}
	if n := len(list.Data); n > 0 {
		query := url.Values{}
		for k, v := range form.Values {
			query.Set(k, v)
		}
		p.Pages = pageLinks("/events", query, page, list.Data[0].ID, list.Data[n-1].ID, list.HasMore, "#events-table")
	}
	return render()
}

// eventObjectType is the kind of object an event of type t is about, as the audit log names
// kinds: the noun before the dot; a payout is a transfer.
func eventObjectType(t payouts.EventType) string {
	noun, _, _ := strings.Cut(string(t), ".")
	switch noun {
	case "payout":
		return "transfer"
	case "webhook_endpoint":
		return "webhook"
	case "transfer", "payout_link", "flow", "payout_request", "user":
		return noun
	}
	return ""
}
