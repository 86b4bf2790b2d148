package handlers_test

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// clone is another browser tab of the same session: its own cookie jar, the same cookies.
func (a *agent) clone() *agent {
	return &agent{h: a.h, cookies: maps.Clone(a.cookies), csrf: a.csrf, header: a.header.Clone()}
}

// TestApprovalTotalsUnderRace: 32 requests at once on two dashboards sharing one database: money
// into one payee's wallet, the same after a 404 with its key, used keys sent again (409), money to
// other payees, and approvals of held requests. However they interleave, what went out without
// approval stays within the payee's limit and each operator's.
func TestApprovalTotalsUnderRace(t *testing.T) {
	t.Parallel()
	// Room under each limit for a few of the requests, once the approvals count.
	policy := testApprovals
	policy.PayeeLimit, policy.OperatorLimit = 6000_00, 5000_00
	eachDashboardEngine(t, func(t *testing.T, setup harnessSetup) {
		setup.handlers = func(c *handlers.Config) { c.Approvals = policy }
		one := newHarnessWith(t, setup)
		two := one.twin(setup)
		one.deposit(100_000_00)
		payee := one.createUser("Ray", "Race")
		var others []*payouts.User
		for i := range 8 {
			u, err := one.payouts.CreateUser(t.Context(), payouts.CreateUserRequest{FirstName: "Other", LastName: fmt.Sprint("Payee", i),
				Email: fmt.Sprintf("race.other%d@example.com", i), CountryCode: "1", PhoneNumber: fmt.Sprintf("415553%04d", i)})
			if err != nil {
				t.Fatal(err)
			}
			others = append(others, u)
		}
		opA, passA := one.addOperator("race-a@example.com", dashstore.RoleOperations)
		opB, passB := one.addOperator("race-b@example.com", dashstore.RoleOperations)
		_, passM := one.addOperator("race-m@example.com", dashstore.RoleManager)
		// Each operator signed in on each dashboard.
		signIn := func(h *harness, email, password string) *agent {
			a := h.agent()
			a.login(email, password)
			return a
		}
		agents := map[string][2]*agent{
			opA.ID: {signIn(one, opA.Email, passA), signIn(two, opA.Email, passA)},
			opB.ID: {signIn(one, opB.Email, passB), signIn(two, opB.Email, passB)},
		}
		manager := signIn(two, "race-m@example.com", passM)

		// Before the race: a key used for $10.00 to the payee, and two requests held above the
		// threshold, to be approved during it.
		usedKey := uuid.NewString()
		if held(t, toWallet(agents[opA.ID][0], payee.ID, "10.00", usedKey)) {
			t.Fatal("$10.00 held")
		}
		var approvals []dashstore.Approval
		for range 2 {
			approvals = append(approvals, one.approvalOf(toWallet(agents[opA.ID][0], payee.ID, "1500.00", uuid.NewString())))
		}

		type outcome struct {
			operator, payee string
			amount          payouts.Money
			status          int
			location        string
		}
		var mu sync.Mutex
		var outcomes []outcome
		record := func(op, payee string, amount payouts.Money, res response) {
			mu.Lock()
			defer mu.Unlock()
			outcomes = append(outcomes, outcome{op, payee, amount, res.StatusCode, res.Header.Get("Location")})
		}
		var wg sync.WaitGroup
		for i := range 32 {
			op := opA.ID
			if i%3 == 0 {
				op = opB.ID
			}
			a := agents[op][i%2].clone()
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch i % 8 {
				case 0, 4: // a 404 first, then the same key for money to the payee
					key := uuid.NewString()
					record(op, "missing", 1_00, toWallet(a, uuid.NewString(), "1.00", key))
					record(op, payee.ID, 999_00, toWallet(a, payee.ID, "999.00", key))
				case 1, 5: // money to the payee
					record(op, payee.ID, 999_00, toWallet(a, payee.ID, "999.00", uuid.NewString()))
				case 2, 6: // money to another payee: the operator's total
					record(op, others[i%len(others)].ID, 999_00, toWallet(a, others[i%len(others)].ID, "999.00", uuid.NewString()))
				case 3: // a used key sent again, for another amount
					record(op, payee.ID, 999_00, toWallet(a, payee.ID, "999.00", usedKey))
				case 7:
					if n := i / 8; n < len(approvals) {
						m := manager.clone()
						m.post(paths.ApprovalDecision(approvals[n].ID), decide("approve", ""))
						return
					}
					record(op, payee.ID, 999_00, toWallet(a, payee.ID, "999.00", usedKey))
				}
			}()
		}
		wg.Wait()

		// What went out without approval, by payee and by operator, from the answers; $10.00 of
		// the payee's and of operator A's went before.
		byPayee, byOperator := map[string]payouts.Money{payee.ID: 10_00}, map[string]payouts.Money{opA.ID: 10_00}
		holds := 0
		for _, o := range outcomes {
			switch {
			case o.status == http.StatusSeeOther && strings.HasPrefix(o.location, "/approvals/"):
				holds++
			case o.status == http.StatusSeeOther:
				byPayee[o.payee] += o.amount
				byOperator[o.operator] += o.amount
			case o.payee == "missing" && o.status == http.StatusNotFound, o.status == http.StatusUnprocessableEntity:
			default:
				t.Errorf("%s to %s: status %d to %q", o.amount, o.payee, o.status, o.location)
			}
		}
		if holds == 0 {
			t.Error("nothing held")
		}
		if byPayee[payee.ID] > policy.PayeeLimit {
			t.Errorf("the payee was sent %s without approval, past the limit of %s", byPayee[payee.ID], policy.PayeeLimit)
		}
		for op, sent := range byOperator {
			if sent > policy.OperatorLimit {
				t.Errorf("operator %s sent %s without approval, past the limit of %s", op, sent, policy.OperatorLimit)
			}
		}
		// The service's own record agrees: what reached the payee is what the answers say, with
		// what the approvals sent.
		var approved payouts.Money
		for _, a := range approvals {
			got, err := one.store.Approval(t.Context(), a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == dashstore.ApprovalApproved {
				approved += got.Amount
			}
		}
		var received payouts.Money
		for tr, err := range one.payouts.AllTransfers(t.Context(), payouts.TransferFilter{UserID: payee.ID}) {
			if err != nil {
				t.Fatal(err)
			}
			received -= tr.Amount
		}
		if received != byPayee[payee.ID]+approved {
			t.Errorf("the payee received %s; the answers say %s, and approvals %s", received, byPayee[payee.ID], approved)
		}
		t.Logf("held %d; sent the payee %s without approval and %s approved; by operator %v", holds, byPayee[payee.ID], approved, byOperator)
	})
}
