package web

import (
	"crypto/subtle"
	"fmt"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// SignIn checks an operator's email and password and, when they match, starts a fresh session
// for them: the old session id is revoked and a new one issued (so a planted id is worth
// nothing), with a new CSRF token. Failed attempts slow down further ones from the same address
// and for the same account from that address (see throttle.go). Wrong email and wrong password
// read the same, and take as long.
func (s *Server) SignIn(c *fiber.Ctx, email, password string) (dashstore.Operator, error) {
	ctx := c.UserContext()
	now := s.cfg.Now()
	ip := s.ClientIP(c)
	keys := s.loginKeys(ip, email)
	if err := s.checkLoginThrottle(c, keys, now); err != nil {
		return dashstore.Operator{}, err
	}

	op, err := s.cfg.Store.OperatorByEmail(ctx, email)
	known := err == nil
	if err != nil && payouts.ErrorCode(err) != payouts.ENotFound {
		return dashstore.Operator{}, err
	}
	hash := s.dummyHash
	if known {
		hash = op.PasswordHash
	}
	ok, err := CheckPassword(password, hash)
	if err != nil {
		return dashstore.Operator{}, fmt.Errorf("operator %s: %w", op.ID, err)
	}
	if !known || !ok {
		var target *dashstore.Operator
		if known {
			target = &op
		}
		if err := s.recordLoginFailure(ctx, keys, ip, email, target, now); err != nil {
			return dashstore.Operator{}, err
		}
		return dashstore.Operator{}, payouts.Errorf(payouts.EUnauthorized, "Wrong email or password.")
	}
	if op.Disabled {
		return dashstore.Operator{}, payouts.Errorf(payouts.EUnauthorized, "This account is disabled. Ask an admin to enable it.")
	}

	rs := sessionOf(c)
	if rs.s.ID != "" {
		if err := s.cfg.Store.DeleteSession(ctx, rs.s.ID); err != nil {
			return dashstore.Operator{}, err
		}
	}
	rs.s.ID = "" // Save issues a new id and a new lifetime
	rs.loaded = ""
	rs.s.Values[keyOperatorID] = op.ID
	rs.s.Values[keyCSRF] = randomToken()
	rs.operator, rs.looked = &op, true
	return op, nil
}

// SignOut revokes the request's session on the server and expires its cookie.
func (s *Server) SignOut(c *fiber.Ctx) {
	if rs := sessionOf(c); rs != nil {
		rs.revoked = true
		rs.operator, rs.looked = nil, true
	}
}

// CurrentOperator returns the signed-in operator, or nil. An operator disabled or deleted since
// they signed in counts as signed out.
func (s *Server) CurrentOperator(c *fiber.Ctx) (*dashstore.Operator, error) {
	rs := sessionOf(c)
	if rs == nil {
		return nil, nil
	}
	if rs.looked {
		return rs.operator, nil
	}
	rs.looked = true
	id, _ := rs.s.Values[keyOperatorID].(string)
	if id == "" {
		return nil, nil
	}
	op, err := s.cfg.Store.Operator(c.UserContext(), id)
	if payouts.ErrorCode(err) == payouts.ENotFound || (err == nil && op.Disabled) {
		rs.revoked = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rs.operator = &op
	return rs.operator, nil
}

// authorize lets a request through to a route that needs perm only if the signed-in operator's
// role grants it. Anyone not signed in is sent to the sign-in page, and comes back afterwards.
func (s *Server) authorize(perm Permission) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if perm == PermPublic {
			return c.Next()
		}
		op, err := s.CurrentOperator(c)
		if err != nil {
			return err
		}
		if op == nil {
			next := c.OriginalURL()
			if c.Method() != fiber.MethodGet {
				next = "/"
			}
			return Redirect(c, "/login?next="+url.QueryEscape(next))
		}
		if !Can(op.Role, perm) {
			if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
				s.auditDenied(c, op, perm)
			}
			return fiber.NewError(fiber.StatusForbidden, "Your role does not allow this. Ask an admin if you need it.")
		}
		return c.Next()
	}
}

// auditDenied records an attempt to act that the operator's role refused, so that a manager
// reviewing the log sees who tried what they may not do. Only unsafe requests are recorded (they
// passed the CSRF check, so the operator's own browser sent them): a page refused changes
// nothing. The route is its pattern, never the URL as typed. A failed write is logged, and the
// request is refused all the same.
func (s *Server) auditDenied(c *fiber.Ctx, op *dashstore.Operator, perm Permission) {
	e := dashstore.AuditEntry{Created: s.cfg.Now(), OperatorID: op.ID, OperatorEmail: op.Email, Action: "access.denied",
		ObjectType: "route", ObjectID: c.Method() + " " + c.Route().Path, IP: s.ClientIP(c),
		Detail: fmt.Sprintf("needs %s, which the %s role does not have", perm, op.Role)}
	if err := s.cfg.Store.AddAudit(c.UserContext(), &e); err != nil {
		s.cfg.Logger.Error("audit log write failed", "action", e.Action, "route", e.ObjectID, "operator", op.Email, "err", err)
	}
}

// SafeNext returns next when it is a path on this site, and "/" otherwise, so a sign-in link
// cannot send an operator to another site.
func SafeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

// Redirect sends the browser to path: a 303 for ordinary requests, HX-Redirect for htmx ones (a
// redirect followed inside an htmx request would swap a whole page into a fragment's place).
func Redirect(c *fiber.Ctx, path string) error {
	if IsHTMX(c) {
		c.Set("HX-Redirect", path)
		return c.SendStatus(fiber.StatusOK)
	}
	return c.Redirect(path, fiber.StatusSeeOther)
}

// IsHTMX reports whether the request came from htmx wanting a fragment: not a boosted link or a
// history restore, which want a whole page.
func IsHTMX(c *fiber.Ctx) bool {
	return c.Get("HX-Request") == "true" && c.Get("HX-Boosted") != "true" && c.Get("HX-History-Restore-Request") != "true"
}

// CSRFToken returns the session's synchronizer token, making one if the session has none.
func CSRFToken(c *fiber.Ctx) string {
	rs := sessionOf(c)
	if rs == nil {
		return ""
	}
	tok, _ := rs.s.Values[keyCSRF].(string)
	if tok == "" {
		tok = randomToken()
		rs.s.Values[keyCSRF] = tok
	}
	return tok
}

// CSRFField and CSRFHeader are where a request carries the token: the hidden field of a form, or
// the header htmx sends (hx-headers on <body>).
const (
	CSRFField  = "_csrf"
	CSRFHeader = "X-CSRF-Token"
)

// checkCSRF refuses every unsafe request whose token does not match the session's.
func (s *Server) checkCSRF(c *fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions, fiber.MethodTrace:
		return c.Next()
	}
	want := sessionValue(c, keyCSRF)
	got := c.Get(CSRFHeader)
	if got == "" {
		got = c.FormValue(CSRFField)
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return fiber.NewError(fiber.StatusForbidden, "This form has expired or came from another site. Reload the page and try again.")
	}
	return c.Next()
}
