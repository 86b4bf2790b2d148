package ledger

import "fmt"

// Check verifies the invariants of one app's ledger, given all its accounts and postings:
// every account's totals equal the sum of its postings by state, every posting is between two
// accounts of the ledger with a positive amount, the balances sum to zero (money is never made
// or lost), and no no-overdraft account is below zero. It returns every violation found.
func Check(accounts []Account, postings []Posting) []error {
	var errs []error
	type totals struct{ dp, cp, dpend, cpend int64 }
	want := make(map[int64]*totals, len(accounts))
	for _, a := range accounts {
		want[a.ID] = &totals{}
	}
	for _, p := range postings {
		if p.Amount <= 0 {
			errs = append(errs, fmt.Errorf("posting %d: amount %d is not positive", p.ID, p.Amount))
		}
		dr, okD := want[p.Debit]
		cr, okC := want[p.Credit]
		if !okD || !okC {
			errs = append(errs, fmt.Errorf("posting %d: account %d or %d is unknown", p.ID, p.Debit, p.Credit))
			continue
		}
		switch p.State {
		case Posted:
			dr.dp += p.Amount
			cr.cp += p.Amount
		case Pending:
			dr.dpend += p.Amount
			cr.cpend += p.Amount
		case Voided:
		default:
			errs = append(errs, fmt.Errorf("posting %d: unknown state %q", p.ID, p.State))
		}
	}
	var sum, pendingSum int64
	for _, a := range accounts {
		w := want[a.ID]
		if a.DebitsPosted != w.dp || a.CreditsPosted != w.cp || a.DebitsPending != w.dpend || a.CreditsPending != w.cpend {
			errs = append(errs, fmt.Errorf("account %d (%s %s): totals %d/%d/%d/%d, postings say %d/%d/%d/%d",
				a.ID, a.Kind, a.Ref, a.DebitsPosted, a.CreditsPosted, a.DebitsPending, a.CreditsPending,
				w.dp, w.cp, w.dpend, w.cpend))
		}
		if a.Kind.NoOverdraft() && a.Available() < 0 {
			errs = append(errs, fmt.Errorf("account %d (%s %s): available %d is below zero", a.ID, a.Kind, a.Ref, a.Available()))
		}
		sum += a.Balance()
		pendingSum += a.CreditsPending - a.DebitsPending
	}
	if sum != 0 {
		errs = append(errs, fmt.Errorf("posted balances sum to %d, not zero", sum))
	}
	if pendingSum != 0 {
		errs = append(errs, fmt.Errorf("pending balances sum to %d, not zero", pendingSum))
	}
	return errs
}
