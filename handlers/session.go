package handlers

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// loginPage shows the sign-in form; a signed-in operator goes straight on.
func (h *Handlers) loginPage(c *fiber.Ctx) error {
	if op, err := h.web.CurrentOperator(c); err != nil {
		return err
	} else if op != nil {
		return web.Redirect(c, web.SafeNext(c.Query("next")))
	}
	return h.renderLogin(c, fiber.StatusOK, pages.LoginProps{Next: c.Query("next")})
}

// login signs an operator in and sends them where they were going.
func (h *Handlers) login(c *fiber.Ctx) error {
	email, next := c.FormValue("email"), web.SafeNext(c.FormValue("next"))
	_, err := h.web.SignIn(c, email, c.FormValue("password"))
	switch payouts.ErrorCode(err) {
	case "":
		return web.Redirect(c, next)
	case payouts.EUnauthorized, payouts.ETooManyRequests:
		status := fiber.StatusUnauthorized
		if payouts.ErrorCode(err) == payouts.ETooManyRequests {
			status = fiber.StatusTooManyRequests
		}
		return h.renderLogin(c, status, pages.LoginProps{Email: email, Next: next, Error: payouts.ErrorMessage(err)})
	default:
		return err
	}
}

func (h *Handlers) renderLogin(c *fiber.Ctx, status int, p pages.LoginProps) error {
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Sign in", Content: pages.Login(view, p), Fragment: pages.LoginForm(view, p)})
}

// logout ends the operator's session on the server.
func (h *Handlers) logout(c *fiber.Ctx) error {
	h.web.SignOut(c)
	return web.Redirect(c, "/login")
}

// home is where "/" leads: the overview for those who may read the app, otherwise the users
// list, which every role may read.
func (h *Handlers) home(c *fiber.Ctx) error {
	if h.can(c, web.PermAppRead) {
		return web.Redirect(c, "/overview")
	}
	return web.Redirect(c, "/users")
}
