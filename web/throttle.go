package web

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// Sign-in throttling. Failures are counted per client address and per (account, address) pair,
// never per account alone: an account-wide lock would let anyone lock the real operator out by
// guessing from elsewhere. Past a number of failures, each key must wait a delay that doubles
// with every further failure (up to LoginWindow) before the next attempt is even checked. The
// account-wide count only raises an alert in the audit log, so an admin hears of an attack
// spread over many addresses.

// loginKeys are the keys a sign-in attempt is throttled under, with the failures each allows
// before the delays start.
type loginKey struct {
	key  string
	free int
}

func (s *Server) loginKeys(ip, email string) []loginKey {
	return []loginKey{
		{"ip:" + ip, s.cfg.LoginAttempts},
		{"pair:" + dashstore.NormalizeEmail(email) + "|" + ip, s.cfg.PairAttempts},
	}
}

// loginDelay is how long a key with n failures in the window, the latest at last, must still
// wait at now; zero lets the attempt through.
func (s *Server) loginDelay(n, free int, last, now time.Time) time.Duration {
	if n < free {
		return 0
	}
	delay := s.cfg.LoginWindow
	if shift := n - free; shift < 32 {
		delay = min(s.cfg.LoginBackoff<<shift, s.cfg.LoginWindow)
	}
	return max(last.Add(delay).Sub(now), 0)
}

// checkLoginThrottle refuses an attempt that comes before its keys' delays have passed, with
// too-many-requests and a Retry-After header.
func (s *Server) checkLoginThrottle(c *fiber.Ctx, keys []loginKey, now time.Time) error {
	var wait time.Duration
	for _, k := range keys {
		n, last, err := s.cfg.Store.LoginFailures(c.UserContext(), k.key, now.Add(-s.cfg.LoginWindow))
		if err != nil {
			return err
		}
		wait = max(wait, s.loginDelay(n, k.free, last, now))
	}
	if wait == 0 {
		return nil
	}
	secs := int((wait + time.Second - 1) / time.Second)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	return payouts.Errorf(payouts.ETooManyRequests,
		"Too many failed sign-in attempts. Wait %s and try again.", humanWait(secs))
}

func humanWait(secs int) string {
	if secs < 120 {
		return fmt.Sprintf("%d seconds", secs)
	}
	return fmt.Sprintf("%d minutes", (secs+59)/60)
}

// recordLoginFailure counts a failed attempt under its keys and the account's, and writes an
// alert to the audit log when the account reaches LoginAlertAt failures in the window (once per
// crossing, not on every later failure).
func (s *Server) recordLoginFailure(ctx context.Context, keys []loginKey, ip, email string, op *dashstore.Operator, now time.Time) error {
	account := "account:" + dashstore.NormalizeEmail(email)
	all := []string{account}
	for _, k := range keys {
		all = append(all, k.key)
	}
	if err := s.cfg.Store.AddLoginFailure(ctx, now, all...); err != nil {
		return err
	}
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.LoginFailed()
	}
	n, _, err := s.cfg.Store.LoginFailures(ctx, account, now.Add(-s.cfg.LoginWindow))
	if err != nil || n != s.cfg.LoginAlertAt {
		return err
	}
	alert := dashstore.AuditEntry{Created: now, OperatorID: AlertOperator, OperatorEmail: dashstore.NormalizeEmail(email),
		Action: "login.failures_alert", ObjectType: "operator", IP: ip,
		Detail: fmt.Sprintf("%d failed sign-ins to this account in %v, from any address", n, s.cfg.LoginWindow)}
	if op != nil {
		alert.ObjectID = op.ID
	}
	s.cfg.Logger.Warn("many failed sign-ins to one account", "email", alert.OperatorEmail, "failures", n, "last_ip", ip)
	return s.cfg.Store.AddAudit(ctx, &alert)
}

// AlertOperator is the operator id of audit entries the dashboard writes itself.
const AlertOperator = "system"
