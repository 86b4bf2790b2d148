package service

import (
	"context"
	"errors"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// RailWebhook is a payout provider's notifications (webhooks), received at
// POST /v2/rail-webhooks/{provider} with no API key: the provider's own verification is the
// only proof they came from it.
type RailWebhook interface {
	// Notification verifies one notification, its headers and raw body, and says what it reports
	// of payouts. A notification that fails verification is a *RailUnverified error, one verified
	// whose content cannot be read a *RailUnreadable; any other error leaves it unanswered, for the
	// provider to send again. A provider whose verification calls out to it (PayPal's) asks admit
	// before each call and returns its error as is; checks it makes on its own come first.
	Notification(ctx context.Context, header http.Header, body []byte, admit AdmitCall) ([]RailNotice, error)
}

// AdmitCall allows, or refuses with too-many-requests, a call a provider is about to make to
// verify a notification.
type AdmitCall func(ctx context.Context) error

// RailNotice is one payout's outcome as a provider's notification reports it.
type RailNotice struct {
	Platform payouts.Platform
	Report   RailReport
}

// RailUnverified is a notification its provider's verification refused.
type RailUnverified struct{ Reason string }

func (e *RailUnverified) Error() string { return "rail notification not verified: " + e.Reason }

// RailUnreadable is a notification verified as the provider's whose content cannot be read: the
// provider sends the same bytes again, so answering it an error of ours would only repeat.
type RailUnreadable struct{ Reason string }

func (e *RailUnreadable) Error() string { return "rail notification unreadable: " + e.Reason }

// RailIgnored is a notification of a payment that is none of ours (one made by hand on the same
// provider account): it is logged and answered as received, since a provider sends anything
// else again for days.
type RailIgnored struct{ Reason string }

func (e *RailIgnored) Error() string { return "rail notification ignored: " + e.Reason }

// ReceiveRailWebhook verifies a provider's notification, sent from clientAddr, and books each
// outcome it reports through ReportRailOutcome, the worker's path: a notification and a poll, or
// a notification sent twice, move a payout once. Only platforms the provider serves
// (Config.RailNames) are booked. A provider not configured is not-found; a notification that
// fails verification is unauthorized and changes nothing; one verified but unreadable is invalid
// input. The calls a provider makes to verify are throttled (Limits.RailWebhookCalls...).
func (s *Service) ReceiveRailWebhook(ctx context.Context, provider, clientAddr string, header http.Header, body []byte) error {
	hook, ok := s.cfg.RailWebhooks[provider]
	if !ok {
		return notFound("rail provider")
	}
	admit := func(ctx context.Context) error { return s.admitRailCall(ctx, provider, clientAddr) }
	notices, err := hook.Notification(ctx, header, body, admit)
	var unverified *RailUnverified
	var unreadable *RailUnreadable
	var ignored *RailIgnored
	switch {
	case errors.As(err, &ignored):
		s.log.Info("rail notification ignored", "provider", provider, "reason", ignored.Reason)
		return nil
	case errors.As(err, &unverified):
		s.log.Warn("rail notification refused", "provider", provider, "reason", unverified.Reason)
		return payouts.Errorf(payouts.EUnauthorized, "The notification could not be verified.")
	case errors.As(err, &unreadable):
		s.log.Warn("rail notification unreadable", "provider", provider, "reason", unreadable.Reason)
		return payouts.Errorf(payouts.EInvalidInput, "The notification is verified but could not be read: %s", unreadable.Reason)
	case err != nil:
		return err
	}
	for _, n := range notices {
		if s.cfg.RailNames[n.Platform] != provider {
			s.log.Warn("rail notification for a platform the provider does not serve ignored",
				"provider", provider, "platform", n.Platform, "transfer", n.Report.TransferID)
			continue
		}
		if err := s.ReportRailOutcome(ctx, n.Platform, n.Report); err != nil {
			return err
		}
	}
	return nil
}

// admitRailCall counts a verification call of provider's for a notification from clientAddr,
// against that address and against all of the provider's: past either limit the call is not
// made. A provider sends a refused notification again later (PayPal retries any answer but a
// 2xx for days), and the worker's poll learns the payout's outcome meanwhile.
func (s *Service) admitRailCall(ctx context.Context, provider, clientAddr string) error {
	if err := s.allow(ctx, s.limits.railWebhookCallsPerAddress, provider+" "+clientAddr,
		"Too many notifications from your address. Send it again later."); err != nil {
		return err
	}
	return s.allow(ctx, s.limits.railWebhookCalls, provider, "Too many notifications. Send it again later.")
}

// RailNames names the rail serving each platform (sandbox, paypal, ...).
func (s *Service) RailNames() map[payouts.Platform]string {
	names := make(map[payouts.Platform]string, len(payouts.Platforms))
	for _, p := range payouts.Platforms {
		names[p] = s.cfg.RailNames[p]
	}
	return names
}
