package ledger

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// Accounts of the tests: 1 and 2 must not go below zero, 9 is external.
const (
	wallet1  int64 = 1
	wallet2  int64 = 2
	external int64 = 9
)

func noOverdraft(id int64) bool { return id != external }

func posting(debit, credit, amount int64, state State) *Posting {
	return &Posting{ID: 7, Debit: debit, Credit: credit, Amount: amount, State: state}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name      string
		changes   []Change
		want      []Delta
		wantState []State
	}{
		{
			name:      "post moves posted totals and guards the debited wallet",
			changes:   []Change{{OpPost, posting(wallet1, wallet2, 500, "")}},
			want:      []Delta{{Account: wallet1, DebitsPosted: 500, Guard: true}, {Account: wallet2, CreditsPosted: 500}},
			wantState: []State{Posted},
		},
		{
			name:      "reserve moves pending totals and guards the debited wallet",
			changes:   []Change{{OpReserve, posting(wallet1, wallet2, 500, "")}},
			want:      []Delta{{Account: wallet1, DebitsPending: 500, Guard: true}, {Account: wallet2, CreditsPending: 500}},
			wantState: []State{Pending},
		},
		{
			name:    "commit turns pending into posted and needs no guard",
			changes: []Change{{OpCommit, posting(wallet1, wallet2, 500, Pending)}},
			want: []Delta{
				{Account: wallet1, DebitsPosted: 500, DebitsPending: -500},
				{Account: wallet2, CreditsPosted: 500, CreditsPending: -500},
			},
			wantState: []State{Posted},
		},
		{
			name:      "void releases the reservation and needs no guard",
			changes:   []Change{{OpVoid, posting(wallet1, wallet2, 500, Pending)}},
			want:      []Delta{{Account: wallet1, DebitsPending: -500}, {Account: wallet2, CreditsPending: -500}},
			wantState: []State{Voided},
		},
		{
			name:      "an external account is never guarded",
			changes:   []Change{{OpPost, posting(external, wallet1, 500, "")}},
			want:      []Delta{{Account: wallet1, CreditsPosted: 500}, {Account: external, DebitsPosted: 500}},
			wantState: []State{Posted},
		},
		{
			name: "changes to one account add up into one delta, sorted by account for lock order",
			changes: []Change{
				{OpPost, posting(wallet2, wallet1, 300, "")},
				{OpPost, posting(external, wallet2, 1000, "")},
				{OpReserve, posting(wallet1, external, 100, "")},
			},
			want: []Delta{
				{Account: wallet1, CreditsPosted: 300, DebitsPending: 100, Guard: true},
				{Account: wallet2, DebitsPosted: 300, CreditsPosted: 1000, Guard: true},
				{Account: external, DebitsPosted: 1000, CreditsPending: 100},
			},
			wantState: []State{Posted, Posted, Pending},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Plan(tt.changes, noOverdraft)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("deltas\n got %+v\nwant %+v", got, tt.want)
			}
			for i, c := range tt.changes {
				if c.Posting.State != tt.wantState[i] {
					t.Errorf("posting %d is %s, want %s", i, c.Posting.State, tt.wantState[i])
				}
			}
		})
	}
}

func TestPlanRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change Change
		want   error
	}{
		{"zero amount", Change{OpPost, posting(wallet1, wallet2, 0, "")}, ErrNonPositive},
		{"negative amount", Change{OpReserve, posting(wallet1, wallet2, -1, "")}, ErrNonPositive},
		{"same account on both sides", Change{OpPost, posting(wallet1, wallet1, 100, "")}, ErrSameAccount},
		{"commit of a posted posting", Change{OpCommit, posting(wallet1, wallet2, 100, Posted)}, ErrBadState},
		{"commit of a voided posting", Change{OpCommit, posting(wallet1, wallet2, 100, Voided)}, ErrBadState},
		{"void of a posted posting", Change{OpVoid, posting(wallet1, wallet2, 100, Posted)}, ErrBadState},
		{"void of a voided posting", Change{OpVoid, posting(wallet1, wallet2, 100, Voided)}, ErrBadState},
		{"commit of a posting never reserved", Change{OpCommit, posting(wallet1, wallet2, 100, "")}, ErrBadState},
		{"unknown operation", Change{Op(42), posting(wallet1, wallet2, 100, "")}, ErrBadOp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.change.Posting.State
			// A valid change first: a refused set must return no deltas at all.
			ok := Change{OpPost, posting(external, wallet1, 100, "")}
			deltas, err := Plan([]Change{ok, tt.change}, noOverdraft)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if deltas != nil {
				t.Errorf("deltas = %+v, want none", deltas)
			}
			if tt.change.Posting.State != before || ok.Posting.State != "" {
				t.Errorf("a refused set moved its postings: %q -> %q, and %q", before, tt.change.Posting.State, ok.Posting.State)
			}
		})
	}
}

func TestAccountBalances(t *testing.T) {
	a := Account{DebitsPosted: 100, CreditsPosted: 1000, DebitsPending: 300, CreditsPending: 50}
	if got := a.Balance(); got != 900 {
		t.Errorf("Balance = %d, want 900", got)
	}
	// Pending credits are not money yet; pending debits are already spoken for.
	if got := a.Available(); got != 600 {
		t.Errorf("Available = %d, want 600", got)
	}
	for _, k := range []Kind{AppWallet, UserWallet, Clearing, Fees, Escrow} {
		if !k.NoOverdraft() {
			t.Errorf("%s may go below zero", k)
		}
	}
	if External.NoOverdraft() {
		t.Error("external accounts must be allowed below zero")
	}
}

// TestDeltaOverdraws: the no-overdraft rule, which a preflight's book and a store's batch both
// decide by: a guarded delta may take an account's available balance to zero, not below; what
// pending debits reserve counts against it, pending credits do not, and an unguarded delta never
// overdraws.
func TestDeltaOverdraws(t *testing.T) {
	a := Account{CreditsPosted: 1000, DebitsPosted: 100, DebitsPending: 300, CreditsPending: 50} // 600 available
	tests := []struct {
		name string
		d    Delta
		want bool
	}{
		{"to zero", Delta{DebitsPosted: 600, Guard: true}, false},
		{"below zero", Delta{DebitsPosted: 601, Guard: true}, true},
		{"a reservation below zero", Delta{DebitsPending: 601, Guard: true}, true},
		{"a pending credit is not money yet", Delta{DebitsPosted: 601, CreditsPending: 5, Guard: true}, true},
		{"a posted credit in the same delta", Delta{DebitsPosted: 601, CreditsPosted: 1, Guard: true}, false},
		{"a settled reservation frees what it held", Delta{DebitsPending: -300, DebitsPosted: 900, Guard: true}, false},
		{"unguarded", Delta{DebitsPosted: 10_000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Overdraws(a); got != tt.want {
				t.Errorf("Overdraws = %v, want %v (available after: %d)", got, tt.want, a.Apply(tt.d).Available())
			}
		})
	}
}

// TestNewMovement: a movement carries the new postings apart from the settled ones, each in its
// new state, dated posted at its instant when posted, with the deltas Plan makes of all; a
// refused plan is no movement.
func TestNewMovement(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	post, reserve := posting(wallet1, wallet2, 300, ""), posting(wallet1, external, 100, "")
	commit, void := posting(wallet2, external, 50, Pending), posting(wallet2, external, 20, Pending)
	changes := []Change{{OpPost, post}, {OpCommit, commit}, {OpReserve, reserve}, {OpVoid, void}}
	m, err := NewMovement(changes, at, noOverdraft)
	if err != nil {
		t.Fatal(err)
	}
	deltas, _ := Plan([]Change{{OpPost, posting(wallet1, wallet2, 300, "")}, {OpCommit, posting(wallet2, external, 50, Pending)},
		{OpReserve, posting(wallet1, external, 100, "")}, {OpVoid, posting(wallet2, external, 20, Pending)}}, noOverdraft)
	tests := []struct {
		name      string
		got, want any
	}{
		{"made", m.Made(), []*Posting{post, reserve}},
		{"settled", m.Settled(), []*Posting{commit, void}},
		{"deltas", m.Deltas(), deltas},
		{"states", []State{post.State, reserve.State, commit.State, void.State}, []State{Posted, Pending, Posted, Voided}},
		{"posted times", []time.Time{post.Posted, reserve.Posted, commit.Posted, void.Posted}, []time.Time{at, {}, at, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %+v, want %+v", tt.got, tt.want)
			}
		})
	}
	if _, err := NewMovement([]Change{{OpCommit, posting(wallet1, wallet2, 5, Posted)}}, at, noOverdraft); !errors.Is(err, ErrBadState) {
		t.Errorf("a commit of a posted posting: %v, want ErrBadState", err)
	}
}
