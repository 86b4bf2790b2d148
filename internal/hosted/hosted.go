// Package hosted is the payee-facing side of the Payout Service: the claim page of a payout link
// (/l/{id}) and the steps of a hosted flow (/f/{id}), rendered with the templ
// views of views/hosted. Handlers decode a form, call the service and render or redirect; routes
// are listed in routes.go.
//
// The pages run inside other sites' iframes, where cookies are unreliable, so a payee's session
// is a token signed by the service (service.SignPayeeSession) carried in a hidden field of every
// form, and taken only from a post's body. A redirect after a post carries, in its ?s=
// parameter, a handoff (service.SignPayeeHandoff) that lasts two minutes and opens only a page's
// GET: the URL, which stays in the browser's history, soon opens nothing. Choices within a page
// (a tax form, a payout platform) are buttons that post for the same reason. The session also
// serves as the CSRF token: a page of another site cannot read it. Every page forbids caching
// and referrers and may be framed only by Config.FrameAncestors.
package hosted

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/static"
	"github.com/disburse/disburse/views/components"
	views "github.com/disburse/disburse/views/hosted"
)

// Config is what the hosted pages are told, parsed once by cmd/* and passed down.
type Config struct {
	// FrameAncestors are the origins allowed to show the pages in an iframe (CSP
	// frame-ancestors), such as the dashboard's origin. Empty allows only the service's own
	// origin.
	FrameAncestors []string
	// Assets are the files served under /static/, css/app.css among them: package static's FS,
	// which hosted may not import itself (the dashboard's side owns it).
	Assets fs.FS
	// Log receives internal errors; nil discards them.
	Log *slog.Logger
}

// Handler serves the hosted pages.
type Handler struct {
	svc    *service.Service
	cfg    Config
	log    *slog.Logger
	assets *static.Assets
}

// New returns the hosted pages of svc; Register adds their routes to a router.
func New(svc *service.Service, cfg Config) (*Handler, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	for _, o := range cfg.FrameAncestors {
		if !validSource(o) {
			return nil, errors.New("hosted: frame ancestor " + o + " is not an origin such as https://example.com")
		}
	}
	if cfg.Assets == nil {
		return nil, errors.New("hosted: Config.Assets is required")
	}
	a, err := static.Load(cfg.Assets)
	if err == nil && a.URL("css/app.css") == "" {
		err = errors.New("hosted: the assets have no css/app.css")
	}
	if err != nil {
		return nil, err
	}
	return &Handler{svc: svc, cfg: cfg, log: cfg.Log, assets: a}, nil
}

// validSource accepts an origin (scheme://host[:port]) or a CSP keyword source such as 'self',
// so that nothing else can be smuggled into the policy.
func validSource(s string) bool {
	if s == "'self'" || s == "'none'" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" &&
		u.Path == "" && u.RawQuery == "" && u.User == nil && !strings.ContainsAny(s, " ;,'\"")
}

// secure sets the security headers of a hosted page. formTargets are origins besides ours that
// a form of the page may send the browser to (the redirect step's destination).
func (h *Handler) secure(c *fiber.Ctx, formTargets ...string) {
	ancestors := "'self'"
	if len(h.cfg.FrameAncestors) > 0 {
		ancestors = strings.Join(h.cfg.FrameAncestors, " ")
	}
	formAction := strings.Join(append([]string{"'self'"}, formTargets...), " ")
	// No script at all: default-src 'none' leaves script-src empty.
	c.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; "+
		"form-action "+formAction+"; frame-ancestors "+ancestors+"; base-uri 'none'")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Cache-Control", "no-store")
}

// page wraps a page handler: security headers, and errors rendered as pages.
func (h *Handler) page(fn fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		h.secure(c)
		if err := fn(c); err != nil {
			return h.renderError(c, err)
		}
		return nil
	}
}

// sameOrigin refuses a form posted from another site. The signed session already stops such
// posts; this is the second lock. Browsers send Origin "null" for our own forms because of
// Referrer-Policy no-referrer, so only a real foreign origin is refused.
func (h *Handler) sameOrigin(fn fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		origin := c.Get(fiber.HeaderOrigin)
		if origin != "" && origin != "null" {
			u, err := url.Parse(origin)
			if err != nil || u.Host != c.Hostname() {
				return payouts.Errorf(payouts.EUnauthorized, "This form was sent from another site.")
			}
		}
		return fn(c)
	}
}

// render answers with a whole page. It renders into a buffer first, so a template error never
// leaves half a page on the wire.
func (h *Handler) render(c *fiber.Ctx, status int, title, appName string, content templ.Component) error {
	var buf bytes.Buffer
	p := views.Page{Title: title, AppName: appName, CSS: h.assets.URL("css/app.css")}
	if err := views.Shell(p, content).Render(c.UserContext(), &buf); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(status).Send(buf.Bytes())
}

// statusOf is the status of an error page for code: the API's (payouts.HTTPStatus), but that
// the payee's refused session is forbidden and a refused request's content unprocessable.
func statusOf(code string) int {
	switch status := payouts.HTTPStatus(code); status {
	case http.StatusBadRequest:
		return http.StatusUnprocessableEntity
	case http.StatusUnauthorized:
		return http.StatusForbidden
	default:
		return status
	}
}

// renderError answers err with an error page. Expected failures say what went wrong; anything
// else is logged and answered with a page that leaks nothing. A refused session on a flow's page
// links to the flow's start, where the payee confirms their phone again.
func (h *Handler) renderError(c *fiber.Ctx, err error) error {
	e := views.Error{Status: http.StatusInternalServerError,
		Message: "Something went wrong on our side. Try again in a moment."}
	var fe *fiber.Error
	var pe *payouts.Error
	switch {
	case errors.As(err, &fe) && fe.Code < http.StatusInternalServerError:
		e.Status, e.Message = fe.Code, fe.Message
	case errors.As(err, &pe) && statusOf(pe.Code) < http.StatusInternalServerError:
		e.Status, e.Message = statusOf(pe.Code), pe.Message
	default:
		h.log.ErrorContext(c.UserContext(), "hosted page failed", "method", c.Method(), "path", c.Path(), "err", err)
	}
	e.Title = http.StatusText(e.Status)
	if id := c.Params("id"); e.Status == http.StatusForbidden && strings.HasPrefix(c.Path(), "/f/") && payouts.ValidID(id) {
		e.Retry = views.Flow{ID: id, Key: c.FormValue("k")}.URL()
	}
	if e.Status == http.StatusNotFound {
		e.Title, e.Message = "Page not found", "This link does not exist. Check the link you were sent."
	}
	return h.render(c, e.Status, e.Title, "", views.ErrorPage(e))
}

// formValues reads a posted form into the values a re-rendered form shows.
func formValues(c *fiber.Ctx) map[string]string {
	out := map[string]string{}
	c.Request().PostArgs().VisitAll(func(k, v []byte) { out[string(k)] = strings.TrimSpace(string(v)) })
	return out
}

// formError turns a service error into the problems a form shows next to its fields. It returns
// false for errors that are no form's business (not found, internal), which become error pages.
func formError(err error, values map[string]string) (components.Form, bool) {
	var e *payouts.Error
	if !errors.As(err, &e) {
		return components.Form{}, false
	}
	switch e.Code {
	case payouts.ENotFound, payouts.EInternal, payouts.EResourceBusy, payouts.ETooManyRequests:
		return components.Form{}, false
	}
	f := components.Form{Values: values, Errors: e.Fields, Message: e.Message}
	if len(e.Fields) > 0 { // on a long form on a phone, the fields may be out of sight
		f.Message = "Please check the fields marked below."
	}
	return f, true
}
