package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// LedgerViolation is what CheckLedger found broken in one app's or organization's ledger.
type LedgerViolation struct {
	AppID    string
	Problems []string
}

func (v *LedgerViolation) Error() string {
	return "ledger of app " + v.AppID + ": " + strings.Join(v.Problems, "; ")
}

// LedgerReport is the outcome of checking every ledger: how many were checked and the
// violations found, each naming its app.
type LedgerReport struct {
	Checked    int
	Violations []LedgerViolation
}

// CheckAllLedgers runs CheckLedger on every app and organization. A violation is reported and
// the check goes on to the next ledger; a failure to read a ledger ends it with the error.
func (s *Service) CheckAllLedgers(ctx context.Context) (LedgerReport, error) {
	apps, err := s.Apps(ctx)
	if err != nil {
		return LedgerReport{}, err
	}
	orgs, err := s.Organizations(ctx)
	if err != nil {
		return LedgerReport{}, err
	}
	var r LedgerReport
	for _, app := range append(apps, orgs...) {
		err := s.CheckLedger(ctx, app.ID)
		var v *LedgerViolation
		switch {
		case errors.As(err, &v):
			r.Violations = append(r.Violations, *v)
		case err != nil:
			return r, err
		}
		r.Checked++
	}
	return r, nil
}

// LedgerAudit is what CheckLedger verifies of one app's ledger, read as of one moment: its
// accounts, postings and transfers, and what the store found wrong in the app's chain, which it
// checks under its key.
type LedgerAudit struct {
	Accounts  []ledger.Account
	Postings  []ledger.Posting
	Transfers []TransferRecord
	Chain     []error
}

// checkTransfers holds each transfer to the postings "What each movement books" (WRITE_PATH.md)
// says it makes: the line that books it moves its amount (a payout's with the fee its user pays)
// between accounts of the right kinds and the transfer's user, in the state its status says.
func checkTransfers(a LedgerAudit) []error {
	accounts := make(map[int64]ledger.Account, len(a.Accounts))
	for _, acc := range a.Accounts {
		accounts[acc.ID] = acc
	}
	lines := map[string][]ledger.Posting{}
	for _, p := range a.Postings {
		lines[p.TransferID] = append(lines[p.TransferID], p)
	}
	var errs []error
	for i := range a.Transfers {
		t := &a.Transfers[i]
		if problem := transferProblem(t, lines[t.ID], accounts); problem != "" {
			errs = append(errs, fmt.Errorf("transfer %s (%s of %s, %s): %s", t.ID, t.Type, t.Amount, t.Status, problem))
		}
	}
	return errs
}

// transferProblem is what is wrong with t's postings, "" when nothing is.
func transferProblem(t *TransferRecord, postings []ledger.Posting, accounts map[int64]ledger.Account) string {
	kind := func(id int64) ledger.Kind { return accounts[id].Kind }
	find := func(typ payouts.TransactionType, from, to ledger.Kind, match func(p *ledger.Posting) bool) *ledger.Posting {
		for i := range postings {
			p := &postings[i]
			if p.Type == string(typ) && kind(p.Debit) == from && kind(p.Credit) == to && (match == nil || match(p)) {
				return p
			}
		}
		return nil
	}
	amount := int64(t.Amount)
	link := t.Type == payouts.TransferBalance && t.PayoutLinkID != nil // a payout link's reservation
	var main *ledger.Posting
	switch {
	case t.Type == payouts.TransferRefill:
		main = find(payouts.TransactionRefill, ledger.External, ledger.AppWallet, nil)
	case link:
		main, amount = find(payouts.TransactionBalance, ledger.AppWallet, ledger.Escrow, nil), -amount
	case t.Type == payouts.TransferBalance && amount < 0:
		main, amount = find(payouts.TransactionBalance, ledger.AppWallet, ledger.UserWallet, nil), -amount
	case t.Type == payouts.TransferBalance:
		main = find(payouts.TransactionBalance, ledger.UserWallet, ledger.AppWallet, nil)
	case t.Type == payouts.TransferPayout && t.UserID != nil:
		main = find(payouts.TransactionPayout, ledger.UserWallet, ledger.Clearing, nil)
	case t.Type == payouts.TransferPayout:
		main = find(payouts.TransactionPayout, ledger.AppWallet, ledger.Clearing, nil)
	}
	if main == nil {
		return "no posting books it"
	}
	moved := main.Amount
	if t.Type == payouts.TransferPayout {
		// The fee its user pays comes out of the amount; one the app pays is on top of it.
		fee := find(payouts.TransactionFee, kind(main.Debit), ledger.Fees, func(p *ledger.Posting) bool { return p.Debit == main.Debit })
		if fee != nil {
			moved += fee.Amount
		}
	}
	if moved != amount {
		return fmt.Sprintf("its postings move %s", payouts.Money(moved))
	}
	for _, side := range []int64{main.Debit, main.Credit} {
		if kind(side) == ledger.UserWallet && (t.UserID == nil || accounts[side].Ref != *t.UserID) {
			return fmt.Sprintf("its %s line moves the wallet of user %s", main.Type, accounts[side].Ref)
		}
	}
	settles := link || t.Type == payouts.TransferPayout
	want := ledger.Posted
	switch {
	case !settles || t.Status == payouts.TransferCompleted:
	case t.Status == payouts.TransferFailed:
		want = ledger.Voided
	default:
		want = ledger.Pending
	}
	switch {
	case want == ledger.Voided && main.State == ledger.Posted && t.Type == payouts.TransferPayout:
		// A payout returned after it settled: its line stays posted and is reversed.
		if find(payouts.TransactionPayout, ledger.Clearing, kind(main.Debit), func(p *ledger.Posting) bool {
			return p.Debit == main.Credit && p.Credit == main.Debit && p.Amount == main.Amount && p.State == ledger.Posted
		}) == nil {
			return "its payout line is posted and was not reversed"
		}
	case main.State != want:
		return fmt.Sprintf("its %s line is %s", main.Type, main.State)
	}
	if link && t.Status == payouts.TransferCompleted {
		// The claimer's wallet: the transfer keeps the user the link named, if any.
		payment := find(payouts.TransactionPayment, ledger.Escrow, ledger.UserWallet, func(p *ledger.Posting) bool {
			return p.Amount == amount && p.State == ledger.Posted
		})
		if payment == nil {
			return "no payment of it to a wallet"
		}
	}
	return ""
}
