package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

// batchState is what the store keeps for one batch of jobs (sqldb.Batch.State): the rows its
// jobs made and the net of their ledger deltas, written before the commit; the batch view its
// jobs read through; and the running job's part of all that (jobState).
type batchState struct {
	held    held       // rows of the batch's jobs, the running job's last (held.go)
	netting netting    // accounts as read, and the net deltas of the jobs that ended well (netting.go)
	reads   batchReads // the batch view (batch_reads.go)
	keys    keysAhead  // idempotency keys claimed for the batch's jobs (idempotency.go)
	job     jobState   // the running job's part
	// lastPostingID is the id of the last posting numbered in the transaction (SQLite,
	// nextPostingID); 0 until the first. postingIDs are ids the transaction took from the
	// sequence and has not yet given (PostgreSQL), reserved the last time.
	lastPostingID int64
	postingIDs    []int64
	reserved      int
}

// jobState is the running job's part of its batch: where the batch's held rows stood when it
// started (its own are those after), the ledger deltas it applied, the accounts and yearly
// totals it read first, the keys claimed ahead that it took, and the changes of the batch view.
// A job that ends well leaves its part in the batch, its deltas netted with the others'; undo
// takes it out when the job is rolled back. It is the one undo of everything the store keeps
// for a batch.
type jobState struct {
	st      *batchState
	running bool
	start   heldMark               // the batch's held rows when the job started
	net     map[int64]ledger.Delta // the job's deltas summed per account
	// accountsRead are the accounts the job read first: the writes of a part undone may have
	// created them. paymentsRead are the yearly totals it read first (and on PostgreSQL locked).
	accountsRead []int64
	paymentsRead []taxYear
	taken        []service.IdempotencyRecord // claimed ahead for the job, and taken by it
	viewChanges  []viewChange                // to the batch view, in order
}

// viewChange is a change of the batch view: a copy kept (of an app, or an app's endpoints), or
// the view dropped (what it held before).
type viewChange struct {
	app, endpoints string
	dropped        *batchReads
}

// batchState returns the store's state of q's batch, made by its first job (or its start).
func (q *Queries) batchState() *batchState {
	st, _ := q.batch.State.(*batchState)
	if st != nil {
		return st
	}
	st = &batchState{netting: newNetting(), reads: newBatchReads()}
	st.job = jobState{st: st, net: map[int64]ledger.Delta{}}
	q.batch.State = st
	q.batch.OnJobEnd(st.endJob)
	q.batch.BeforeCommit(func(ctx context.Context, _ *sql.Tx) error {
		stmts := releaseKeysAhead(st.keys)
		held, err := q.heldStmts(&st.held)
		if err != nil {
			return err
		}
		stmts = append(stmts, held...)
		stmts = append(stmts, st.netting.stmts(q.dialect)...)
		// On PostgreSQL the whole batch's writes are one round trip.
		err = q.runInBatch(ctx, stmts)
		if errors.Is(err, service.ErrOverdraft) {
			return fmt.Errorf("store: a concurrent write overdrew an account of the batch: %w", sqldb.ErrRetry)
		}
		return err
	})
	return st
}

// startJob begins the part of the job about to run.
func (st *batchState) startJob() *jobState {
	j := &st.job
	j.running = true
	j.start = st.held.mark()
	return j
}

// endJob ends the running job's part (sqldb.Batch.OnJobEnd): kept when the job's writes stand,
// undone when they were rolled back.
func (st *batchState) endJob(ok bool) {
	j := &st.job
	if !j.running { // a job that never touched the store (sqldb.DB.InTx)
		return
	}
	if ok {
		for id, d := range j.net {
			st.netting.kept[id] = sum(st.netting.kept[id], d)
		}
	} else {
		j.undo()
	}
	j.running = false
	j.accountsRead, j.paymentsRead, j.taken = j.accountsRead[:0], j.paymentsRead[:0], j.taken[:0]
	clear(j.net)
	clear(j.viewChanges) // what a drop held is garbage now
	j.viewChanges = j.viewChanges[:0]
}

// undo takes the rolled-back job's part out of the batch: the rows it held are dropped, and
// those written since it started are held again (the rollback took them out of the database;
// they were the job's, or held before it); its deltas are dropped; what it read first is
// forgotten, for the next reader to read (and on PostgreSQL lock) again; the keys it took go
// back to the batch's claims, which gives back those no job keeps; the batch view is as it was
// (what it held then is what the database holds again).
func (j *jobState) undo() {
	st := j.st
	st.held.undo(j.start)
	clear(j.net)
	st.netting.forget(j.accountsRead)
	for _, k := range j.paymentsRead {
		delete(st.held.stored, k)
		delete(st.held.paid, k) // 0: its rows were all held since
	}
	for _, k := range j.taken {
		st.keys.claimed[keyRef{k.AppID, k.Key}] = k
	}
	for i := len(j.viewChanges) - 1; i >= 0; i-- {
		switch c := j.viewChanges[i]; {
		case c.dropped != nil:
			st.reads = *c.dropped
		case c.app != "":
			delete(st.reads.apps, c.app)
		default:
			delete(st.reads.endpoints, c.endpoints)
		}
	}
}
