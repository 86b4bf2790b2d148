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
// totals it read first, the keys claimed ahead that it took, and how many statements it sent.
// A job that ends well leaves its part in the batch, its deltas netted with the others'. undo
// puts the batch back as it stood at a mark: the job's start when the job is rolled back, a
// Savepoint's start when that one is. It is the one undo of everything the store keeps for a
// batch.
type jobState struct {
	st      *batchState
	running bool
	start   mark
	deltas  []ledger.Delta         // as the job applied them, in order
	net     map[int64]ledger.Delta // deltas summed per account
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

// mark is where the running job's part stood.
type mark struct {
	held                                                   heldMark
	deltas, accountsRead, paymentsRead, taken, viewChanges int
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
	j.start = j.mark()
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
		j.undo(j.start)
	}
	j.running = false
	j.deltas, j.accountsRead, j.paymentsRead, j.taken = j.deltas[:0], j.accountsRead[:0], j.paymentsRead[:0], j.taken[:0]
	clear(j.net)
	clear(j.viewChanges) // what a drop held is garbage now
	j.viewChanges = j.viewChanges[:0]
}

func (j *jobState) mark() mark {
	return mark{held: j.st.held.mark(), deltas: len(j.deltas), accountsRead: len(j.accountsRead),
		paymentsRead: len(j.paymentsRead), taken: len(j.taken), viewChanges: len(j.viewChanges)}
}

// undo puts the batch back as it stood at m, for a job or a savepoint of it rolled back: the
// rows held since are dropped, and those written since are held again (the rollback took them
// out of the database; they were another job's, or held before m); the deltas applied since are
// dropped; what was first read since is forgotten, for the next reader to read (and on
// PostgreSQL lock) again; the keys taken since go back to the batch's claims, which gives back
// those no job keeps; the batch view is as it was (what it held then is what the database holds
// again).
func (j *jobState) undo(m mark) {
	st := j.st
	st.held.undo(m.held)
	if len(j.deltas) > m.deltas {
		j.deltas = j.deltas[:m.deltas]
		clear(j.net)
		for _, d := range j.deltas {
			j.net[d.Account] = sum(j.net[d.Account], d)
		}
	}
	st.netting.forget(j.accountsRead[m.accountsRead:])
	j.accountsRead = j.accountsRead[:m.accountsRead]
	for _, k := range j.paymentsRead[m.paymentsRead:] {
		delete(st.held.stored, k)
		delete(st.held.paid, k) // 0: its rows were all held since
	}
	j.paymentsRead = j.paymentsRead[:m.paymentsRead]
	for _, k := range j.taken[m.taken:] {
		st.keys.claimed[keyRef{k.AppID, k.Key}] = k
	}
	j.taken = j.taken[:m.taken]
	for i := len(j.viewChanges) - 1; i >= m.viewChanges; i-- {
		switch c := j.viewChanges[i]; {
		case c.dropped != nil:
			st.reads = *c.dropped
		case c.app != "":
			delete(st.reads.apps, c.app)
		default:
			delete(st.reads.endpoints, c.endpoints)
		}
	}
	j.viewChanges = j.viewChanges[:m.viewChanges]
}
