package service

import (
	"context"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/disburse/disburse/payouts"
)

// The sandbox inbox: the sandbox notifier (package sandbox) keeps messages instead of sending
// them. Their bodies hold one-time codes and claim links, so they are sealed with the service's
// key (bound to the app) and only the service's readers below open them.

// SealMessage is m as the sandbox notifier keeps it, its body sealed with key (the service's
// EncryptionKey).
func SealMessage(key []byte, m Message, created time.Time) (*MessageRecord, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	sealed := sealWith(aead, []byte(m.Body), aadOf(SealedMessage, m.AppID))
	return &MessageRecord{AppID: m.AppID, Channel: m.Channel, To: m.To, Subject: m.Subject,
		Body: base64.StdEncoding.EncodeToString(sealed), Created: created}, nil
}

// openMessage opens the body of a kept message. A body that does not open (sealed under another
// key) says so rather than failing the whole inbox.
func (s *Service) openMessage(m *MessageRecord) {
	sealed, err := base64.StdEncoding.DecodeString(m.Body)
	if err == nil {
		var body []byte
		if body, err = s.open(sealed, aadOf(SealedMessage, m.AppID)); err == nil {
			m.Body = string(body)
			return
		}
	}
	m.Body = "(sealed with another key)"
}

// Inbox returns the newest messages kept, of one app or of all when appID is empty, opened:
// for tests and tools in the process. No transport lists every app's messages.
func (s *Service) Inbox(ctx context.Context, appID string, limit int) ([]MessageRecord, error) {
	if limit < 1 || limit > 500 {
		limit = 100
	}
	msgs, err := s.store.ListMessages(ctx, appID, 0, limit)
	for i := range msgs {
		s.openMessage(&msgs[i])
	}
	return msgs, err
}

// Sandbox reports whether the service runs in sandbox mode, where its own staff may read the
// messages it keeps and redirect to http://localhost.
func (s *Service) Sandbox() bool { return s.cfg.Sandbox }

// SandboxMessages is a page of the app's kept messages, newest first: GET /v2/sandbox/messages
// and the dashboard's inbox. Outside sandbox mode there are none to read.
func (s *Service) SandboxMessages(ctx context.Context, appID string, page payouts.Page) (*payouts.List[payouts.SandboxMessage], error) {
	if !s.cfg.Sandbox {
		return nil, notFound("sandbox inbox")
	}
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if page.EndingBefore != "" {
		return nil, payouts.FieldError("ending_before", "is not supported by the sandbox inbox; page with starting_after")
	}
	var before int64
	if page.StartingAfter != "" {
		n, err := strconv.ParseInt(page.StartingAfter, 10, 64)
		if err != nil || n < 1 {
			return nil, payouts.FieldError("starting_after", "is not the id of a message")
		}
		before = n
	}
	msgs, err := s.store.ListMessages(ctx, appID, before, page.Limit+1)
	if err != nil {
		return nil, err
	}
	out := &payouts.List[payouts.SandboxMessage]{HasMore: len(msgs) > page.Limit, Data: []payouts.SandboxMessage{}}
	for i := range msgs[:min(len(msgs), page.Limit)] {
		m := &msgs[i]
		s.openMessage(m)
		out.Data = append(out.Data, payouts.SandboxMessage{ID: strconv.FormatInt(m.ID, 10), Created: payouts.NewTime(m.Created),
			Channel: m.Channel, To: m.To, Subject: m.Subject, Body: m.Body})
	}
	return out, nil
}
