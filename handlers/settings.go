package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// settings shows the signed-in operator's own settings.
func (h *Handlers) settings(c *fiber.Ctx) error {
	op := h.operatorOf(c)
	return h.renderSettings(c, fiber.StatusOK, components.Form{Values: map[string]string{"time_zone": op.TimeZone}})
}

func (h *Handlers) renderSettings(c *fiber.Ctx, status int, form components.Form) error {
	p := pages.SettingsProps{Form: form, TimeZone: h.operatorOf(c).TimeZone}
	return h.web.Render(c, status, web.Page{Title: "Settings", Content: pages.Settings(h.web.View(c), p)})
}

// setTimeZone sets the signed-in operator's time zone: from then on their days are its days.
func (h *Handlers) setTimeZone(c *fiber.Ctx) error {
	form := formOf(c, "time_zone")
	op := h.operatorOf(c)
	err := h.store.SetOperatorTimeZone(c.UserContext(), op.ID, form.Value("time_zone"), h.now())
	if formFailed(err, &form) {
		return h.renderSettings(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	h.audit(c, "operator.time_zone", "operator", op.ID, "time zone "+form.Value("time_zone"))
	web.Flash(c, web.FlashSuccess, "Saved: your days are days in "+form.Value("time_zone")+".")
	return web.Redirect(c, "/settings")
}

// zoneOf is the time zone whose days the signed-in operator reads: theirs once they set it,
// which is then put on form as tz, whatever a link's query said, so the page names it and its
// links carry it; until then the browser's, which a filter form sends as tz (static/js/app.js,
// which fills an empty one); else UTC.
func (h *Handlers) zoneOf(c *fiber.Ctx, form *components.Form) *time.Location {
	if name := h.operatorOf(c).TimeZone; name != "" {
		if form.Values == nil {
			form.Values = map[string]string{}
		}
		form.Values["tz"] = name
	}
	name := form.Value("tz")
	loc, ok := payouts.LoadZone(name)
	if name == "" || !ok {
		delete(form.Values, "tz")
		return time.UTC
	}
	return loc
}
