package web

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/layout"
	"github.com/disburse/disburse/views/pages"
)

// Page is what a handler renders: the page's content inside the shell, and the fragment an htmx
// request swaps in instead.
type Page struct {
	Title    string
	Content  templ.Component // the page inside the shell
	Fragment templ.Component // answered to htmx requests; nil answers the whole page to them too
}

// Render answers with p: the whole page, or for an htmx request its fragment (plus any flash
// messages as toasts). It renders into a buffer first, so a template error never leaves half a
// page on the wire.
func (s *Server) Render(c *fiber.Ctx, status int, p Page) error {
	ctx := s.viewContext(c)
	var buf bytes.Buffer
	if IsHTMX(c) && p.Fragment != nil {
		if err := p.Fragment.Render(ctx, &buf); err != nil {
			return err
		}
		if err := components.ToastsOOB(toComponentFlashes(takeFlashes(c))).Render(ctx, &buf); err != nil {
			return err
		}
	} else {
		props, err := s.layoutProps(c, p.Title)
		if err != nil {
			return err
		}
		if err := layout.Shell(props, p.Content).Render(ctx, &buf); err != nil {
			return err
		}
	}
	c.Vary("HX-Request")
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(status).Send(buf.Bytes())
}

// viewContext carries the request's CSP nonce, which templ reads from the context for the
// scripts it renders.
func (s *Server) viewContext(c *fiber.Ctx) context.Context {
	return templ.WithNonce(c.UserContext(), Nonce(c))
}

// View is what the pages rendered for c need of it: the session's CSRF token, for their forms,
// and the server's clock, for their relative times.
func (s *Server) View(c *fiber.Ctx) components.Request {
	return components.Request{CSRF: CSRFToken(c), Now: s.cfg.Now()}
}

func (s *Server) layoutProps(c *fiber.Ctx, title string) (layout.Props, error) {
	props := layout.Props{Title: title, CSRF: CSRFToken(c), Assets: layout.Assets{
		CSS: s.Asset("css/app.css"), HTMX: s.Asset("js/htmx.min.js"), App: s.Asset("js/app.js"),
	}}
	op, err := s.CurrentOperator(c)
	if err != nil {
		return props, err
	}
	if op != nil {
		props.Operator = &layout.Operator{Name: op.Name, Email: op.Email, Role: op.Role.Label()}
		for _, item := range s.cfg.Nav {
			if Can(op.Role, item.Perm) {
				props.Nav = append(props.Nav, layout.NavLink{Label: item.Label, Href: item.Href, More: item.More,
					Active: c.Path() == item.Href || strings.HasPrefix(c.Path(), item.Href+"/")})
			}
		}
	}
	props.Flashes = toComponentFlashes(takeFlashes(c))
	return props, nil
}

func toComponentFlashes(fs []flash) []components.Flash {
	out := make([]components.Flash, len(fs))
	for i, f := range fs {
		out[i] = components.Flash{Kind: f.kind, Message: f.message}
	}
	return out
}

// StatusOf maps an error to the HTTP status the dashboard answers with: the API's status for its
// code (payouts.HTTPStatus), but for the two that mean something else to an operator.
func StatusOf(err error) int {
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	status := payouts.HTTPStatus(payouts.ErrorCode(err))
	switch status {
	case fiber.StatusBadRequest:
		// The dashboard sent what the operator typed: the content is what the service refused.
		return fiber.StatusUnprocessableEntity
	case fiber.StatusUnauthorized:
		// The service refused the dashboard's own credentials: a configuration problem upstream.
		return fiber.StatusBadGateway
	}
	var ue *url.Error
	if status == fiber.StatusInternalServerError && errors.As(err, &ue) {
		return fiber.StatusBadGateway
	}
	return status
}

// messageOf is what the operator reads about err; internal details never reach them.
func messageOf(err error, status int) string {
	var fe *fiber.Error
	switch {
	case errors.As(err, &fe) && status < 500:
		return fe.Message
	case status == fiber.StatusBadGateway && payouts.ErrorCode(err) == payouts.EUnauthorized:
		return "The Payout Service refused the dashboard's API credentials. Ask an admin to check the configuration."
	case status == fiber.StatusBadGateway:
		return "The Payout Service did not answer. Try again in a moment."
	case status >= 500:
		return "Something went wrong on our side. Try again; if it keeps happening, tell an admin."
	}
	return payouts.ErrorMessage(err)
}

// handleError is Fiber's error handler: an error page for a page request, a toast for an htmx
// one. Failures on our side are logged with their details; the operator reads only a message.
func (s *Server) handleError(c *fiber.Ctx, err error) error {
	status := StatusOf(err)
	msg := messageOf(err, status)
	if status >= 500 {
		s.cfg.Logger.Error("request failed", "method", c.Method(), "path", c.Path(), "status", status, "err", err)
	}
	c.Response().ResetBody()
	c.Set("Cache-Control", "no-store")
	if status == fiber.StatusTooManyRequests {
		c.Set(fiber.HeaderRetryAfter, "60")
	}
	var page Page
	if IsHTMX(c) {
		c.Set("HX-Retarget", "#toasts")
		c.Set("HX-Reswap", "beforeend")
		page.Fragment = components.Toast(components.Flash{Kind: "error", Message: msg})
	} else {
		op, _ := s.CurrentOperator(c)
		page.Title = http.StatusText(status)
		page.Content = pages.Error(pages.ErrorProps{Status: status, Message: msg, SignedIn: op != nil})
	}
	if rerr := s.Render(c, status, page); rerr != nil {
		s.cfg.Logger.Error("render error page", "err", rerr)
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(status).SendString(msg)
	}
	return nil
}
