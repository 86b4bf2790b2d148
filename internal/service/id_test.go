package service_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
)

// TestIDs checks the two kinds of id the service makes: records get time-ordered ids (UUIDv7),
// so ids made one after another sort one after another and their index entries append; a payout
// link and a flow, whose id alone opens the payee's page, get random ones (UUIDv4).
func TestIDs(t *testing.T) {
	e := newEnv(t, 10_000)
	var transfers []string
	for range 20 {
		tr, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -1})
		if err != nil {
			t.Fatal(err)
		}
		transfers = append(transfers, tr.ID)
	}
	link, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 100,
		Payee: &payouts.Payee{FirstName: "Grace", Email: "grace@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	flow, err := e.svc.CreateFlow(e.ctx, e.app, payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepCompliance}}})
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		id      string
		version uuid.Version
	}{
		{"user", e.user.ID, 7},
		{"first transfer", transfers[0], 7},
		{"payout link", link.ID, 4},
		{"flow", flow.ID, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := uuid.Parse(tc.id)
			if err != nil || u.Version() != tc.version || u.Variant() != uuid.RFC4122 {
				t.Errorf("id %s: version %d, variant %v, err %v; want version %d", tc.id, u.Version(), u.Variant(), err, tc.version)
			}
		})
	}
	for i := 1; i < len(transfers); i++ {
		if transfers[i] <= transfers[i-1] {
			t.Errorf("transfer %d's id %s sorts before the one made before it, %s", i, transfers[i], transfers[i-1])
		}
	}
}
