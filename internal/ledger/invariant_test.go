package ledger

import (
	"strings"
	"testing"
)

// sound is a ledger that keeps every invariant: the bank refilled wallet 1 with 1,000, wallet 1
// reserved 300 for wallet 2, and a reservation of 50 was voided.
func sound() ([]Account, []Posting) {
	accounts := []Account{
		{ID: wallet1, Kind: UserWallet, Ref: "u1", CreditsPosted: 1000, DebitsPending: 300},
		{ID: wallet2, Kind: UserWallet, Ref: "u2", CreditsPending: 300},
		{ID: external, Kind: External, Ref: "bank", DebitsPosted: 1000},
	}
	postings := []Posting{
		{ID: 1, Debit: external, Credit: wallet1, Amount: 1000, State: Posted},
		{ID: 2, Debit: wallet1, Credit: wallet2, Amount: 300, State: Pending},
		{ID: 3, Debit: wallet1, Credit: wallet2, Amount: 50, State: Voided},
	}
	return accounts, postings
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(accounts []Account, postings []Posting) ([]Account, []Posting)
		want    []string // one substring per error expected, in order
	}{
		{"a sound ledger", func(a []Account, p []Posting) ([]Account, []Posting) { return a, p }, nil},
		{"a posting of zero", func(a []Account, p []Posting) ([]Account, []Posting) {
			return a, append(p, Posting{ID: 4, Debit: wallet1, Credit: wallet2, Amount: 0, State: Posted})
		}, []string{"posting 4: amount 0 is not positive"}},
		{"a negative posting", func(a []Account, p []Posting) ([]Account, []Posting) {
			return a, append(p, Posting{ID: 4, Debit: wallet1, Credit: wallet2, Amount: -5, State: Voided})
		}, []string{"posting 4: amount -5 is not positive"}},
		{"a posting to an account outside the ledger", func(a []Account, p []Posting) ([]Account, []Posting) {
			return a, append(p, Posting{ID: 4, Debit: wallet1, Credit: 77, Amount: 5, State: Voided})
		}, []string{"posting 4: account 1 or 77 is unknown"}},
		{"a posting in no known state", func(a []Account, p []Posting) ([]Account, []Posting) {
			p[0].State = "lost"
			return a, p
		}, []string{"posting 1: unknown state", "account 1 (user_wallet u1): totals", "account 9 (external bank): totals"}},
		{"a posted credit without its posting", func(a []Account, p []Posting) ([]Account, []Posting) {
			a[1].CreditsPosted += 10
			return a, p
		}, []string{"account 2 (user_wallet u2): totals 0/10/0/300, postings say 0/0/0/300", "posted balances sum to 10"}},
		{"a pending debit without its posting", func(a []Account, p []Posting) ([]Account, []Posting) {
			a[2].DebitsPending += 10
			return a, p
		}, []string{"account 9 (external bank): totals", "pending balances sum to -10"}},
		{"a wallet spent below zero", func(a []Account, p []Posting) ([]Account, []Posting) {
			a[0].DebitsPosted += 800
			a[2].CreditsPosted += 800
			return a, append(p, Posting{ID: 4, Debit: wallet1, Credit: external, Amount: 800, State: Posted})
		}, []string{"account 1 (user_wallet u1): available -100 is below zero"}},
		{"an external account below zero is by design", func(a []Account, p []Posting) ([]Account, []Posting) {
			return a, p // the bank's account sits at -1,000 in the sound ledger
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Check(tt.corrupt(sound()))
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors %v, want %d: %q", len(errs), errs, len(tt.want), tt.want)
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tt.want[i]) {
					t.Errorf("error %d = %q, want it to say %q", i, err, tt.want[i])
				}
			}
		})
	}
}
