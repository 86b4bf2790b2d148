package dashstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// testPolicy holds one request above $1,000.00, a payee past $3,000.00 and an operator past
// $5,000.00 in 24 hours.
var testPolicy = dashstore.ApprovalPolicy{On: true, Above: 1000_00, Window: 24 * time.Hour, PayeeLimit: 3000_00,
	OperatorLimit: 5000_00}

func flow(key, payee, operator string, amount payouts.Money) dashstore.Outflow {
	return dashstore.Outflow{Key: key, Kind: "payout", Payee: payee, OperatorID: operator, Amount: amount}
}

func admit(t *testing.T, s *dashstore.Store, now time.Time, flows ...dashstore.Outflow) []dashstore.HoldReason {
	t.Helper()
	_, reasons := admitWith(t, s, nil, now, flows...)
	return reasons
}

// admitWithPolicy asks about flows under p.
func admitWithPolicy(t *testing.T, s *dashstore.Store, p dashstore.ApprovalPolicy, now time.Time, flows ...dashstore.Outflow) []dashstore.HoldReason {
	t.Helper()
	_, reasons, err := s.AdmitOutflows(context.Background(), p, flows, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	return reasons
}

// admitWith asks about flows with what the service's record says of their payees, and returns the
// attempts admitted, or the reasons they wait.
func admitWith(t *testing.T, s *dashstore.Store, record map[string]dashstore.PayeeRecord, now time.Time, flows ...dashstore.Outflow) ([]string, []dashstore.HoldReason) {
	t.Helper()
	attempts, reasons, err := s.AdmitOutflows(context.Background(), testPolicy, flows, record, now)
	if err != nil {
		t.Fatal(err)
	}
	if (len(attempts) == len(flows)) == (len(reasons) > 0) {
		t.Fatalf("%d attempts for %d flows with reasons %+v", len(attempts), len(flows), reasons)
	}
	return attempts, reasons
}

// TestApprovalTotals: splitting a sum into requests under the threshold cannot pass a limit of
// the window, on both engines.
func TestApprovalTotals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		t.Run("payouts just under the threshold to one payee: the one past the limit waits", func(t *testing.T) {
			for i := range 3 {
				if r := admit(t, s, t0.Add(time.Duration(i)*time.Hour), flow(fmt.Sprint("p", i), "ada", "op1", 999_99)); r != nil {
					t.Fatalf("payout %d of $999.99 held: %+v", i+1, r)
				}
			}
			r := admit(t, s, t0.Add(3*time.Hour), flow("p3", "ada", "op1", 999_99))
			want := dashstore.HoldReason{Rule: dashstore.HoldPayee, Who: "ada", Sent: 2999_97, Adding: 999_99, Limit: 3000_00, Window: 24 * time.Hour}
			if len(r) != 1 || r[0] != want {
				t.Fatalf("the fourth payout: reasons %+v, want %+v", r, want)
			}
			// Held, it counts nothing: a small one still fits under the limit.
			if r := admit(t, s, t0.Add(3*time.Hour), flow("p4", "ada", "op1", 3)); r != nil {
				t.Errorf("3 cents more, to exactly the limit: held %+v", r)
			}
			// A day after the first, it has left the window.
			if r := admit(t, s, t0.Add(24*time.Hour+time.Second), flow("p5", "ada", "op1", 999_99)); r != nil {
				t.Errorf("once the first left the window: held %+v", r)
			}
		})

		t.Run("a form sent again counts once", func(t *testing.T) {
			for range 5 {
				attempts, r := admitWith(t, s, nil, t0, flow("same", "bob", "op2", 1000_00))
				if r != nil {
					t.Fatalf("held %+v", r)
				}
				// The service answers each with the one transfer it made of the key.
				if err := s.SettleSent(context.Background(), attempts[0], "transfer-same"); err != nil {
					t.Fatal(err)
				}
			}
			if r := admit(t, s, t0, flow("other", "bob", "op2", 2000_00)); r == nil || r[0].Rule != dashstore.HoldRequest || len(r) != 1 {
				t.Errorf("$2,000.00 after $1,000.00 sent five times: reasons %+v, want only the request's own", r)
			}
			if r := admit(t, s, t0, flow("other2", "bob", "op2", 1000_00)); r != nil {
				t.Errorf("$1,000.00 after $1,000.00 sent five times: held %+v", r)
			}
			// With a limit of $2,500.00 over 48 hours: the same form within the service's memory of
			// its key is the same transfer; past it, a new one, counted against the first.
			long := testPolicy
			long.Window, long.PayeeLimit = 48*time.Hour, 2500_00
			if r := admitWithPolicy(t, s, long, t0.Add(time.Hour), flow("same", "bob", "op2", 1000_00)); r != nil {
				t.Errorf("the form again within the key's memory: held %+v", r)
			}
			later := t0.Add(dashstore.KeyMemory + time.Second)
			if r := admitWithPolicy(t, s, long, later, flow("same", "bob", "op2", 1000_00)); len(r) != 1 || r[0].Sent != 2000_00 {
				t.Errorf("the form again after the key's memory: reasons %+v, want the first counted ($2,000.00 sent)", r)
			}
		})

		t.Run("an operator's total over many payees", func(t *testing.T) {
			for i := range 5 {
				if r := admit(t, s, t0, flow(fmt.Sprint("o", i), fmt.Sprint("payee", i), "op3", 1000_00)); r != nil {
					t.Fatalf("payout %d held: %+v", i+1, r)
				}
			}
			r := admit(t, s, t0, flow("o5", "payee5", "op3", 1))
			if len(r) != 1 || r[0].Rule != dashstore.HoldOperator || r[0].Who != "op3" || r[0].Sent != 5000_00 {
				t.Errorf("a cent past the operator's limit: reasons %+v", r)
			}
		})

		t.Run("one request above the threshold, and a bulk file's rows to one payee", func(t *testing.T) {
			r := admit(t, s, t0, flow("big", "cy", "op4", 1000_01))
			if len(r) != 1 || r[0].Rule != dashstore.HoldRequest || r[0].Adding != 1000_01 {
				t.Errorf("$1,000.01: reasons %+v", r)
			}
			var rows []dashstore.Outflow
			for i := range 4 {
				rows = append(rows, flow(dashstore.BulkOutflowKey("job", i+1), "dee", "op4", 200_00))
			}
			if r := admit(t, s, t0, rows...); r != nil {
				t.Fatalf("four rows of $200.00: held %+v", r)
			}
			for i := range 2 {
				if r := admit(t, s, t0, flow(fmt.Sprint("dee", i), "dee", "op4", 999_99)); r != nil {
					t.Fatalf("payout %d held: %+v", i+1, r)
				}
			}
			rows = []dashstore.Outflow{flow(dashstore.BulkOutflowKey("job2", 1), "eve", "op4", 10_00),
				flow(dashstore.BulkOutflowKey("job2", 2), "dee", "op4", 150_00), flow(dashstore.BulkOutflowKey("job2", 3), "dee", "op4", 150_00)}
			r = admit(t, s, t0, rows...)
			if len(r) != 1 || r[0].Rule != dashstore.HoldPayee || r[0].Who != "dee" || r[0].Sent != 2799_98 || r[0].Adding != 300_00 {
				t.Errorf("a file adding $300.00 to $2,799.98 sent: reasons %+v", r)
			}
		})

		t.Run("a refused attempt stops counting, and only it", func(t *testing.T) {
			first, _ := admitWith(t, s, nil, t0, flow("fay-key", "fay", "op5", 1000_00))
			if err := s.SettleSent(context.Background(), first[0], "transfer-fay"); err != nil {
				t.Fatal(err)
			}
			// The key again, for another amount: admitted on its own, refused by the service (a
			// key used for another request), and forgotten without the first.
			again, r := admitWith(t, s, nil, t0, flow("fay-key", "fay", "op5", 999_00))
			if r != nil {
				t.Fatalf("held %+v", r)
			}
			if err := s.SettleRefused(context.Background(), again...); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if r := admit(t, s, t0, flow(fmt.Sprint("fay", i), "fay", "op5", 1000_00)); r != nil {
					t.Fatalf("payout %d held: %+v", i+1, r)
				}
			}
			if r := admit(t, s, t0, flow("fay-past", "fay", "op5", 1)); len(r) != 1 || r[0].Sent != 3000_00 {
				t.Errorf("a cent past the limit: reasons %+v, want $3,000.00 sent", r)
			}
		})

		t.Run("a key first refused counts nothing, and the next request with it counts in full", func(t *testing.T) {
			refused, _ := admitWith(t, s, nil, t0, flow("nf-key", "nobody", "op8", 1_00))
			if err := s.SettleRefused(context.Background(), refused...); err != nil {
				t.Fatal(err)
			}
			r := admit(t, s, t0, flow("nf-key", "gil", "op8", 50_000_00))
			if len(r) == 0 || r[0].Rule != dashstore.HoldRequest {
				t.Errorf("$50,000.00 with the key: reasons %+v, want held", r)
			}
		})

		t.Run("no answer counts until the key succeeds, once", func(t *testing.T) {
			lost, _ := admitWith(t, s, nil, t0, flow("lost", "ivy", "op9", 1000_00))
			for _, k := range []string{"next", "next2"} {
				if r := admit(t, s, t0, flow(k, "ivy", "op9", 1000_00)); len(r) != 0 {
					t.Fatalf("held %+v", r)
				}
			}
			if r := admit(t, s, t0, flow("more", "ivy", "op9", 1)); len(r) != 1 || r[0].Sent != 3000_00 {
				t.Fatalf("with a request that had no answer: reasons %+v, want it counted", r)
			}
			// Sent again, the same request answers; the two count once.
			retry, _ := admitWith(t, s, nil, t0, flow("lost", "ivy", "op9", 1000_00))
			if err := s.SettleSent(context.Background(), retry[0], "transfer-lost"); err != nil {
				t.Fatal(err)
			}
			if err := s.SettleSent(context.Background(), lost[0], "transfer-lost"); err != nil {
				t.Fatal(err)
			}
			if r := admit(t, s, t0, flow("more", "ivy", "op9", 1)); len(r) != 1 || r[0].Sent != 3000_00 {
				t.Errorf("after the retry answered: reasons %+v, want $3,000.00 sent", r)
			}
		})

		t.Run("the service's record of a payee, and what it does not show yet", func(t *testing.T) {
			sent, _ := admitWith(t, s, nil, t0, flow("jo-1", "jo", "op10", 900_00))
			if err := s.SettleSent(context.Background(), sent[0], "transfer-jo-1"); err != nil {
				t.Fatal(err)
			}
			admitWith(t, s, nil, t0, flow("jo-2", "jo", "op10", 800_00)) // no answer yet
			record := map[string]dashstore.PayeeRecord{"jo": {Sent: 900_00 + 1000_00, IDs: map[string]bool{"transfer-jo-1": true}}}
			_, r := admitWith(t, s, record, t0, flow("jo-3", "jo", "op11", 300_01))
			if len(r) != 1 || r[0].Rule != dashstore.HoldPayee || r[0].Sent != 2700_00 {
				t.Errorf("reasons %+v, want the service's $1,900.00 and the pending $800.00", r)
			}
			// Before the service shows it, the sent one counts from the dashboard's record.
			_, r = admitWith(t, s, map[string]dashstore.PayeeRecord{"jo": {}}, t0, flow("jo-3", "jo", "op11", 1300_01))
			if len(r) != 2 || r[1].Rule != dashstore.HoldPayee || r[1].Sent != 1700_00 {
				t.Errorf("reasons %+v, want $1,700.00 sent from the dashboard's record", r)
			}
		})

		t.Run("an approved request counts whatever the limits", func(t *testing.T) {
			if _, err := s.RecordOutflows(context.Background(), []dashstore.Outflow{flow("approved", "gus", "op6", 5000_00)}, t0); err != nil {
				t.Fatal(err)
			}
			if r := admit(t, s, t0, flow("after", "gus", "op7", 1)); len(r) != 1 || r[0].Sent != 5000_00 {
				t.Errorf("a cent after an approved $5,000.00: reasons %+v", r)
			}
		})

		t.Run("requests sent at once pass the limit together no more than one by one", func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			passed := 0
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, r, err := s.AdmitOutflows(context.Background(), testPolicy, []dashstore.Outflow{
						flow(fmt.Sprint("race", i), "hal", fmt.Sprint("racer", i), 999_99)}, nil, t0)
					if err != nil {
						t.Error(err)
						return
					}
					if r == nil {
						mu.Lock()
						passed++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if passed != 3 {
				t.Errorf("%d of 8 payouts of $999.99 at once went out, want 3 ($3,000.00 a payee)", passed)
			}
		})

		t.Run("an approval keeps the totals that held it", func(t *testing.T) {
			maker := mustCreate(t, s, "totals-maker@example.com", dashstore.RoleOperations)
			a := newApproval("22222222-2222-4222-8222-222222222222", maker)
			a.PayeeKey = "ada"
			a.HeldFor = []dashstore.HoldReason{{Rule: dashstore.HoldPayee, Who: "ada", Sent: 4500_00, Adding: 100_00, Limit: 3000_00, Window: 24 * time.Hour}}
			if _, err := s.CreateApproval(context.Background(), a, t0); err != nil {
				t.Fatal(err)
			}
			got, err := s.Approval(context.Background(), a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.PayeeKey != "ada" || len(got.HeldFor) != 1 || got.HeldFor[0] != a.HeldFor[0] {
				t.Errorf("read back %q %+v, want %q %+v", got.PayeeKey, got.HeldFor, a.PayeeKey, a.HeldFor)
			}
		})
	})
}

func TestPayeeContactKey(t *testing.T) {
	tests := []struct {
		name, email, country, phone, want string
	}{
		{"phone first, digits only", "A@x.com", "+1", "(415) 555-0101", "phone:+14155550101"},
		{"email, case and spacing aside", " Ada@Example.COM ", "1", "", "email:ada@example.com"},
		{"nobody", "", "1", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dashstore.PayeeContactKey(tt.email, tt.country, tt.phone); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOperatorVouchedFor: who made an operator, gave them a role or a password, and when, is kept;
// disabling them is no vouching.
func TestOperatorVouchedFor(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		admin := mustCreate(t, s, "vouch-admin@example.com", dashstore.RoleAdmin)
		other := mustCreate(t, s, "vouch-other@example.com", dashstore.RoleAdmin)
		op := dashstore.Operator{Email: "vouched@example.com", Name: "Vouched", Role: dashstore.RoleSupport,
			PasswordHash: "$argon2id$hash", VouchedBy: admin.ID}
		if err := s.CreateOperator(ctx, &op, t0); err != nil {
			t.Fatal(err)
		}
		manager, later := dashstore.RoleManager, t0.Add(time.Hour)
		for _, tc := range []struct {
			name   string
			upd    dashstore.OperatorUpdate
			by     string
			at     time.Time
			before time.Time
		}{
			{"made", dashstore.OperatorUpdate{}, admin.ID, t0, t0},
			{"a role", dashstore.OperatorUpdate{Role: &manager, By: other.ID}, other.ID, later, later},
			{"disabled is no vouching", dashstore.OperatorUpdate{Disabled: new(true), By: admin.ID}, other.ID, later, later.Add(time.Hour)},
			{"a password", dashstore.OperatorUpdate{PasswordHash: new("$argon2id$other"), By: admin.ID}, admin.ID, later.Add(2 * time.Hour), later.Add(2 * time.Hour)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.upd != (dashstore.OperatorUpdate{}) {
					if _, err := s.UpdateOperator(ctx, op.ID, tc.upd, tc.before); err != nil {
						t.Fatal(err)
					}
				}
				got, err := s.Operator(ctx, op.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.VouchedBy != tc.by || !got.VouchedAt.Equal(tc.at) {
					t.Errorf("vouched by %s at %v, want %s at %v", got.VouchedBy, got.VouchedAt, tc.by, tc.at)
				}
			})
		}
	})
}
