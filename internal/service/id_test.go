package service_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// TestIDs checks the two kinds of id the service makes: records get time-ordered ids (UUIDv7),
// so ids made one after another sort one after another and their index entries append, and
// transfers' short ids count up in the short-id index (TestTransferIDs); a payout link and a flow,
// whose id alone opens the payee's page, get random ones (UUIDv4).
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
		key, prevKey := service.ShortIDKey(payouts.ShortID(transfers[i])), service.ShortIDKey(payouts.ShortID(transfers[i-1]))
		if key[:6] <= prevKey[:6] {
			t.Errorf("transfer %d's short id key %s does not follow the one made before it, %s (service.TransferIDs)", i, key, prevKey)
		}
	}
}

// TestTransferIDs: the ids of an app's transfers, made one after another while another app's
// are made too, are UUIDv7s that sort in the order they were made; their short ids differ in the
// third digit from the one before (the first two are random), where an operator reads them, while
// their ShortIDKeys count up, so that the short-id index appends.
func TestTransferIDs(t *testing.T) {
	var made service.TransferIDs
	const n = 5000
	ids := map[string][]string{}
	for range n {
		for _, app := range []string{"app-a", "app-b"} {
			ids[app] = append(ids[app], made.New(app))
		}
	}
	for app, ids := range ids {
		for i, id := range ids {
			u, err := uuid.Parse(id)
			if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("%s: id %q: version %v, variant %v, err %v; want a UUIDv7", app, id, u.Version(), u.Variant(), err)
			}
			if i == 0 {
				continue
			}
			prev := ids[i-1]
			if id <= prev {
				t.Fatalf("%s: id %s made after %s sorts before it", app, id, prev)
			}
			short, prevShort := payouts.ShortID(id), payouts.ShortID(prev)
			if key, prevKey := service.ShortIDKey(short), service.ShortIDKey(prevShort); key[:6] <= prevKey[:6] {
				t.Fatalf("%s: short id key %s of %s does not follow %s of %s", app, key, id, prevKey, prev)
			}
			if short[2] == prevShort[2] {
				t.Fatalf("%s: short ids %s and %s made one after another share their third digit", app, prevShort, short)
			}
		}
	}
}

func TestShortIDKey(t *testing.T) {
	for _, tc := range []struct{ short, want string }{
		{"a3012345", "543210a3"},
		{"5d6a9e10", "01e9a65d"},
		{"abc", "abc"}, // not a short id: itself
	} {
		t.Run(tc.short, func(t *testing.T) {
			if got := service.ShortIDKey(tc.short); got != tc.want {
				t.Errorf("service.ShortIDKey(%q) = %q, want %q", tc.short, got, tc.want)
			}
		})
	}
}
