// Package notify sends each of the service's messages through the provider configured for its
// channel (payoutd.Config.Messages): email over SMTP (smtpmail), texts through Twilio
// (twiliosms), and whatever no provider serves into the sandbox inbox.
package notify

import (
	"context"
	"fmt"

	"github.com/disburse/disburse/internal/service"
)

// Router is a notifier per channel ("email", "sms"); a spoken code ("voice") goes where texts
// go. A channel it has none for uses Default.
type Router struct {
	Channels map[string]service.Notifier
	Default  service.Notifier
}

// Send hands m to its channel's notifier.
func (r Router) Send(ctx context.Context, m service.Message) error {
	n := r.Channels[Channel(m.Channel)]
	if n == nil {
		n = r.Default
	}
	if n == nil {
		return fmt.Errorf("%w: no provider sends %s messages", service.ErrUndeliverable, m.Channel)
	}
	return n.Send(ctx, m)
}

// Channel is the configured channel a message's channel goes through: a voice code is a
// phone's, as texts are.
func Channel(c string) string {
	if c == "voice" {
		return "sms"
	}
	return c
}
