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
// signed, for their own flow, and each opener only its own kind (a session for a post, a handoff
// for a redirect's URL); a forged or altered token, whatever it looks like, is refused, and
// nothing panics.
func FuzzOpenPayeeSession(f *testing.F) {
	clock := fixedClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	// No store: signing and opening a session never reach one.
	cfg := sandbox.Wire(service.Config{EncryptionKey: bytes.Repeat([]byte{5}, 32)}, clock, 0, 0)
	svc, err := service.New(nil, cfg, clock, sandbox.Inbox{Clock: clock}, nil)
	if err != nil {
		f.Fatal(err)
	}
	const flow = "0e4f5c1a-9b7d-4c36-8f0e-2a1b3c4d5e6f"
	sessions := []string{
		svc.SignPayeeSession(service.PayeeSession{FlowID: flow, UserID: "user-1"}),
		svc.SignPayeeSession(service.PayeeSession{FlowID: flow, UserID: "user-1", Verified: true}),
		svc.SignPayeeSession(service.PayeeSession{FlowID: "other-flow", UserID: "user-1", Verified: true}),
		svc.SignPayeeSession(service.PayeeSession{FlowID: flow, ByEmail: true}),
		svc.SignPayeeSession(service.PayeeSession{FlowID: flow, ByEmail: true, Verified: true}),
	}
	handoffs := []string{
		svc.SignPayeeHandoff(service.PayeeSession{FlowID: flow, UserID: "user-1"}),
		svc.SignPayeeHandoff(service.PayeeSession{FlowID: flow, UserID: "user-1", Verified: true}),
		svc.SignPayeeHandoff(service.PayeeSession{FlowID: flow, ByEmail: true, Verified: true}),
	}
	for _, tok := range append(slices.Clone(sessions), handoffs...) {
		f.Add(tok, flow)
	}
	f.Add("", flow)
	f.Add("a.b.v.99999999999.c", "a")
	f.Fuzz(func(t *testing.T, token, flowID string) {
		if sess, err := svc.OpenPayeeSession(token, flowID); err == nil && (!slices.Contains(sessions, token) || sess.FlowID != flowID) {
			t.Fatalf("OpenPayeeSession(%q, %q) accepted a token the service never signed as a session for that flow: %+v", token, flowID, sess)
		}
		if sess, err := svc.OpenPayeeHandoff(token, flowID); err == nil && (!slices.Contains(handoffs, token) || sess.FlowID != flowID) {
			t.Fatalf("OpenPayeeHandoff(%q, %q) accepted a token the service never signed as a handoff for that flow: %+v", token, flowID, sess)
		}
	})
}
