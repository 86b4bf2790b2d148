package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/notify/smtpmail"
	"github.com/disburse/disburse/internal/notify/twiliosms"
	"github.com/disburse/disburse/internal/notify/twiliosms/twiliotest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/mailpit"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// pastMessageLease is longer than a worker holds a message it is sending.
const pastMessageLease = 2 * time.Minute

// crashingNotifier counts what reaches the provider behind it, by message key, and kills its
// worker at one point of a send: before the provider has the message, or after it took it and
// before the worker records that.
type crashingNotifier struct {
	inner service.Notifier
	mu    sync.Mutex
	die   func()
	crash string // "before", "after" or "" (no crash)
	sent  map[string]int
}

func (n *crashingNotifier) Send(ctx context.Context, m service.Message) error {
	n.mu.Lock()
	crash, die := n.crash, n.die
	n.crash = ""
	n.mu.Unlock()
	if crash == "before" {
		die()
		return ctx.Err()
	}
	if err := n.inner.Send(ctx, m); err != nil {
		return err
	}
	n.mu.Lock()
	n.sent[m.Key]++
	n.mu.Unlock()
	if crash == "after" {
		die()
		return ctx.Err()
	}
	return nil
}

// discard is a provider that takes every message.
type discard struct{}

func (discard) Send(context.Context, service.Message) error { return nil }

// TestMessageCrashPoints kills the process at each point between a payout link's message being
// recorded and its outcome being recorded, starts a new one on the same database, and checks the
// documented bound (service/message.go): the message is never lost; no second worker sends it
// while the dead one's lease lasts; it reaches the provider again only when the worker died
// after the provider took it, under the same key (the SMTP Message-ID Mailpit shows); and the link
// ends delivered. On both engines, in front of a provider that takes everything, of Mailpit, and
// of the Twilio double.
func TestMessageCrashPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("a fault test: the process dies at each step of a message send")
	}
	tests := []struct {
		name      string
		crash     string // where the worker dies, "" for a process that dies before any worker ran
		wantSends int
	}{
		{"after the record, before any worker", "", 1},
		{"after the lease, before the provider", "before", 1},
		{"after the provider, before the outcome", "after", 2},
	}
	providers := []struct {
		name  string
		start func(t *testing.T) (service.Notifier, payouts.DeliveryMethod, func(t *testing.T) []string)
	}{
		{"discard", func(t *testing.T) (service.Notifier, payouts.DeliveryMethod, func(t *testing.T) []string) {
			return discard{}, payouts.DeliveryEmail, nil
		}},
		{"smtp", func(t *testing.T) (service.Notifier, payouts.DeliveryMethod, func(t *testing.T) []string) {
			mp := mailpit.Start(t)
			n, err := smtpmail.New(smtpmail.Config{URL: mp.SMTPURL, From: "payouts@pay.example.com", TLS: mp.TLS})
			if err != nil {
				t.Fatal(err)
			}
			return n, payouts.DeliveryEmail, func(t *testing.T) []string {
				var ids []string
				for _, m := range mp.Messages(t) {
					ids = append(ids, m.MessageID)
				}
				return ids
			}
		}},
		{"twilio", func(t *testing.T) (service.Notifier, payouts.DeliveryMethod, func(t *testing.T) []string) {
			d := twiliotest.New(t)
			n, err := twiliosms.New(twiliosms.Config{AccountSID: twiliotest.AccountSID, AuthToken: twiliotest.AuthToken,
				From: "+14155552345", APIBase: d.URL})
			if err != nil {
				t.Fatal(err)
			}
			return n, payouts.DeliverySMS, func(t *testing.T) []string {
				var bodies []string
				for _, r := range d.Requests() {
					bodies = append(bodies, r.Get("To"))
				}
				return bodies
			}
		}},
	}
	for _, tt := range tests {
		for _, p := range providers {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				pgtest.EachEngine(t, func(t *testing.T, dsn string) {
					inner, method, received := p.start(t)
					n := &crashingNotifier{inner: inner, sent: map[string]int{}}
					e := newEnvOn(t, dsn, nil, deposit)
					e.notifier = n
					e.open(t)
					link, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 25_00,
						Payee:    &payouts.Payee{FirstName: "Ada", Email: "ada@example.com", CountryCode: "1", PhoneNumber: "4155550101"},
						Delivery: &payouts.Delivery{Method: method}})
					if err != nil {
						t.Fatal(err)
					}
					if tt.crash != "" {
						ctx, die := context.WithCancel(e.ctx)
						n.die, n.crash = die, tt.crash
						if _, err := e.svc.DeliverDue(ctx, 10); err == nil {
							t.Fatal("the worker's step returned no error; a crash should end it with one")
						}
						die()
					}

					e.open(t) // the process died; a new one takes over the database
					if got, err := e.svc.DeliverDue(e.ctx, 10); err != nil || (tt.crash != "" && got != 0) {
						t.Fatalf("a new worker within the dead one's lease sent %d messages (%v), want none", got, err)
					}
					e.clock.Advance(pastMessageLease)
					if _, err := e.svc.DeliverDue(e.ctx, 10); err != nil {
						t.Fatal(err)
					}
					if got, err := e.svc.DeliverDue(e.ctx, 10); err != nil || got != 0 {
						t.Fatalf("a message was due again after it was sent: %d, %v", got, err)
					}

					for key, sends := range n.sent {
						if len(n.sent) != 1 || sends != tt.wantSends {
							t.Errorf("sends by message key %v, want %d of one message (%s)", n.sent, tt.wantSends, key)
						}
					}
					if len(n.sent) == 0 {
						t.Error("the message was lost")
					}
					if received != nil {
						got := received(t)
						if len(got) != tt.wantSends || (len(got) == 2 && got[0] != got[1]) {
							t.Errorf("the provider received %q, want %d copies of one message", got, tt.wantSends)
						}
					}
					l, err := e.svc.GetPayoutLink(e.ctx, e.app, link.ID)
					if err != nil || l.Status != payouts.LinkDelivered {
						t.Fatalf("the link is %v (%v), want delivered", l.Status, err)
					}
				})
			})
		}
	}
}
