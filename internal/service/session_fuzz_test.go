package service_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// FuzzOpenPayeeSession: the hosted pages' signed payee session accepts only tokens the service
// signed, for their own flow; a forged or altered token, whatever it looks like, is refused,
// and nothing panics.
func FuzzOpenPayeeSession(f *testing.F) {
	clock := fixedClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	// No store: signing and opening a session never reach one.
	cfg := sandbox.Wire(service.Config{EncryptionKey: bytes.Repeat([]byte{5}, 32)}, clock, 0, 0)
	svc, err := service.New(nil, cfg, clock, sandbox.Inbox{Clock: clock}, nil)
	if err != nil {
		f.Fatal(err)
	}
	const flow = "0e4f5c1a-9b7d-4c36-8f0e-2a1b3c4d5e6f"
	signed := []string{
		svc.SignPayeeSession(flow, "user-1", false),
		svc.SignPayeeSession(flow, "user-1", true),
		svc.SignPayeeSession("other-flow", "user-1", true),
	}
	for _, tok := range signed {
		f.Add(tok, flow)
	}
	f.Add("", flow)
	f.Add("a.b.v.99999999999.c", "a")
	f.Fuzz(func(t *testing.T, token, flowID string) {
		sess, err := svc.OpenPayeeSession(token, flowID)
		if err != nil {
			return
		}
		if !slices.Contains(signed, token) || sess.FlowID != flowID {
			t.Fatalf("OpenPayeeSession(%q, %q) accepted a token the service never signed for that flow: %+v", token, flowID, sess)
		}
	})
}
