package service

import (
	"context"
	"errors"
	"strings"
)

// Sandbox delivery triggers, documented in the README: a message to an email address containing
// "bounce", or to a phone number ending in 0000, fails to deliver.
const (
	TriggerBounce      = "bounce"
	TriggerBouncePhone = "0000"
)

// inbox is the sandbox notifier: it keeps every message in the database, where the service's
// inbox page shows them, instead of sending them.
type inbox struct {
	store Store
	clock Clock
}

func (n inbox) Send(ctx context.Context, m Message) error {
	if strings.Contains(strings.ToLower(m.To), TriggerBounce) || strings.HasSuffix(m.To, TriggerBouncePhone) {
		return errors.New("sandbox: " + m.To + " does not accept messages")
	}
	return n.store.InTx(ctx, func(q Queries) error {
		return q.SaveMessage(ctx, &MessageRecord{AppID: m.AppID, Channel: m.Channel, To: m.To,
			Subject: m.Subject, Body: m.Body, Created: n.clock.Now()})
	})
}

// Inbox returns the newest messages the sandbox notifier kept, of one app or of all when appID is
// empty.
func (s *Service) Inbox(ctx context.Context, appID string, limit int) ([]MessageRecord, error) {
	if limit < 1 || limit > 500 {
		limit = 100
	}
	return s.store.ListMessages(ctx, appID, limit)
}
