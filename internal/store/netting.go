package store

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// netting holds the ledger deltas of a batch of write transactions until its commit: every
// account gets one UPDATE per batch however many jobs moved its money, so the app wallet, which
// every transfer touches, is written (and on PostgreSQL locked) once per batch, at its end, in
// account order. Each job's overdraft guard is checked against the running balance: the row as
// read plus the deltas of the batch's jobs so far and the job's own (jobState). The final UPDATE
// checks the guard again in the database, against a concurrent writer; if that fails the batch's
// jobs run again alone.
type netting struct {
	read map[int64]ledger.Account // rows as the batch first read them
	refs map[accountRef]int64     // account ids by app, kind and ref: read once per batch
	kept map[int64]ledger.Delta   // net deltas of the jobs that ended well
}

type accountRef struct {
	appID string
	kind  ledger.Kind
	ref   string
}

func newNetting() netting {
	return netting{read: map[int64]ledger.Account{}, refs: map[accountRef]int64{}, kept: map[int64]ledger.Delta{}}
}

// seen records an account row as read from the database, and returns it as it stands in the
// batch so far.
func (j *jobState) seen(a *ledger.Account) *ledger.Account {
	n := &j.st.netting
	if _, ok := n.read[a.ID]; !ok {
		n.read[a.ID] = *a
	}
	n.refs[accountRef{a.AppID, a.Kind, a.Ref}] = a.ID
	v := j.view(a.ID)
	return &v
}

// known returns an account the batch has read, as it stands in the batch, sparing the read.
func (j *jobState) known(appID string, kind ledger.Kind, ref string) (*ledger.Account, bool) {
	if j == nil {
		return nil, false
	}
	id, ok := j.st.netting.refs[accountRef{appID, kind, ref}]
	if !ok {
		return nil, false
	}
	a := j.view(id)
	return &a, true
}

// view is an account as it stands in the batch: as read, plus the deltas kept and the job's.
func (j *jobState) view(id int64) ledger.Account {
	n := &j.st.netting
	return n.read[id].Apply(sum(n.kept[id], j.net[id]))
}

// wallet shows a user's wallet as it stands in the batch, when the batch moved its money.
func (j *jobState) wallet(u *service.UserRecord) {
	if id, ok := j.st.netting.refs[accountRef{u.AppID, ledger.UserWallet, u.ID}]; ok {
		a := j.view(id)
		u.Wallet = payouts.Wallet{Amount: payouts.Money(a.Balance()), WithdrawableAmount: payouts.Money(a.Available())}
	}
}

// check refuses with service.ErrOverdraft deltas of which one guarded would leave its account's
// available balance below zero, as the batch has it with the job's deltas so far; it reads the
// accounts the batch has not read yet, in one statement.
func (j *jobState) check(ctx context.Context, q *Queries, deltas []ledger.Delta) error {
	if err := j.readAccounts(ctx, q, deltas); err != nil {
		return err
	}
	for _, d := range deltas {
		if d.Overdraws(j.view(d.Account)) {
			return service.ErrOverdraft
		}
	}
	return nil
}

// readAccounts reads the accounts of deltas that the batch has not read yet, all in one
// statement: a payout's settlement moves four (the user's wallet, the app's, the rail's clearing
// account and fees), and on PostgreSQL each read alone is a round trip.
func (j *jobState) readAccounts(ctx context.Context, q *Queries, deltas []ledger.Delta) error {
	var ids []int64
	for _, d := range deltas {
		if _, ok := j.st.netting.read[d.Account]; !ok && !slices.Contains(ids, d.Account) {
			ids = append(ids, d.Account)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	marks, args := idList(ids)
	if err := q.runStmt(ctx, reading(accountsTable), j.st.accountsStmt(`SELECT `+accountColumns+` FROM ledger_accounts WHERE id IN (`+marks+`)`, args...)); err != nil {
		return fmt.Errorf("store: read accounts %v: %w", ids, err)
	}
	for _, id := range ids {
		if _, ok := j.st.netting.read[id]; !ok {
			return fmt.Errorf("store: read account %d: %w", id, service.ErrNoRecord)
		}
	}
	return nil
}

// add adds deltas that passed check to the job's.
func (j *jobState) add(deltas []ledger.Delta) {
	for _, d := range deltas {
		j.net[d.Account] = sum(j.net[d.Account], d)
	}
}

// stmts write the net delta of every account the batch moved, in account order (so batches
// of several writers lock rows in one order), each guarded if any of its deltas was.
func (n *netting) stmts(d sqldb.Dialect) []sqldb.Stmt {
	deltas := slices.Collect(maps.Values(n.kept))
	slices.SortFunc(deltas, func(a, b ledger.Delta) int { return cmp.Compare(a.Account, b.Account) })
	return deltaStmts(d, deltas)
}

func sum(a, b ledger.Delta) ledger.Delta {
	return ledger.Delta{Account: cmp.Or(a.Account, b.Account),
		DebitsPosted: a.DebitsPosted + b.DebitsPosted, CreditsPosted: a.CreditsPosted + b.CreditsPosted,
		DebitsPending: a.DebitsPending + b.DebitsPending, CreditsPending: a.CreditsPending + b.CreditsPending,
		Guard: a.Guard || b.Guard}
}
