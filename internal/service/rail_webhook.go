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
	// of payouts. A notification that fails verification is a *RailUnverified error; any other
	// error leaves it unanswered, for the provider to send again.
	Notification(ctx context.Context, header http.Header, body []byte) ([]RailNotice, error)
}

// RailNotice is one payout's outcome as a provider's notification reports it.
type RailNotice struct {
	Platform payouts.Platform
	Report   RailReport
}

// RailUnverified is a notification its provider's verification refused.
type RailUnverified struct{ Reason string }

func (e *RailUnverified) Error() string { return "rail notification not verified: " + e.Reason }

// ReceiveRailWebhook verifies a provider's notification and books each outcome it reports through
// ReportRailOutcome, the worker's path: a notification and a poll, or a notification sent twice,
// move a payout once. Only platforms the provider serves (Config.RailNames) are booked. A
// provider not configured is not-found; a notification that fails verification is unauthorized
// and changes nothing.
func (s *Service) ReceiveRailWebhook(ctx context.Context, provider string, header http.Header, body []byte) error {
	hook, ok := s.cfg.RailWebhooks[provider]
	if !ok {
		return notFound("rail provider")
	}
	notices, err := hook.Notification(ctx, header, body)
	var unverified *RailUnverified
	if errors.As(err, &unverified) {
		s.log.Warn("rail notification refused", "provider", provider, "reason", unverified.Reason)
		return payouts.Errorf(payouts.EUnauthorized, "The notification could not be verified.")
	}
	if err != nil {
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

// RailNames names the rail serving each platform (sandbox, paypal, ...).
func (s *Service) RailNames() map[payouts.Platform]string {
	names := make(map[payouts.Platform]string, len(payouts.Platforms))
	for _, p := range payouts.Platforms {
		names[p] = s.cfg.RailNames[p]
	}
	return names
}
