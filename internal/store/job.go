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
	held    held       // rows of the batch's jobs, the running job's plan last (held.go)
	netting netting    // accounts as read, and the net deltas of the jobs that ended well (netting.go)
	reads   batchReads // the batch view (batch_reads.go)
	keys    keysAhead  // idempotency keys claimed for the batch's jobs (idempotency.go)
	job     jobState   // the running job's part
	// lastPostingID is the id of the last posting numbered in the transaction (SQLite,
	// postingIDs); 0 until the first. postingIDs are ids the transaction took from the
	// sequence and has not yet given (PostgreSQL), reserved the last time.
	lastPostingID int64
	postingIDs    []int64
	reserved      int
}

// jobState is the running job's part of its batch: its plan of held rows (held), the ledger
// deltas it applied, the keys claimed ahead that
// it took and those it claimed itself. A job that ends well leaves its part in the batch, its deltas netted with the
// others'; undo takes it out when the job fails. It is the one undo of everything the store
// keeps for a batch.
//
// Only a job that changed no row fails alone (sqldb.Batch): every statement that may change
// rows, and a write of the job's own held rows, says so first (beforeStatement, writeHeld). So
// what a failed job leaves in the batch is what the database holds: the accounts, yearly totals,
// apps and endpoints it read stay read, for the jobs after it.
type jobState struct {
	st      *batchState
	running bool
	net     map[int64]ledger.Delta      // the job's deltas summed per account
	taken   []service.IdempotencyRecord // claimed ahead for the job, and taken by it
	claimed []service.IdempotencyRecord // claimed by the job itself (ClaimIdempotencyKey)
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
		held, err := q.heldStmts(&st.held, heldTables)
		if err != nil {
			return err
		}
		stmts = append(stmts, held...)
		stmts = append(stmts, st.netting.stmts(q.dialect)...)
		// The chains' heads are locked last, after the accounts, as every writer does.
		heads := map[string]ledger.ChainHead{}
		chained := st.held.chain.kept
		if len(chained) > 0 {
			lock, err := q.chainHeadsStmts(chainApps(chained), heads)
			if err != nil {
				return err
			}
			stmts = append(stmts, lock...)
		}
		// On PostgreSQL the whole batch's writes are one round trip, and its chains' a second.
		err = q.runInBatch(ctx, stmts)
		if errors.Is(err, service.ErrOverdraft) {
			return fmt.Errorf("store: a concurrent write overdrew an account of the batch: %w", sqldb.ErrRetry)
		}
		if err != nil || len(chained) == 0 {
			return err
		}
		chain, err := q.chainStmts(chained, heads)
		if err != nil {
			return err
		}
		return q.runInBatch(ctx, chain)
	})
	return st
}

// startJob begins the part of the job about to run.
func (st *batchState) startJob() *jobState {
	j := &st.job
	j.running = true
	return j
}

// endJob ends the running job's part (sqldb.Batch.OnJobEnd): kept when the job's writes stand,
// undone when it failed.
func (st *batchState) endJob(ok bool) {
	j := &st.job
	if !j.running { // a job that never touched the store (sqldb.DB.InTx)
		return
	}
	st.held.endJob(ok)
	if ok {
		for id, d := range j.net {
			st.netting.kept[id] = sum(st.netting.kept[id], d)
		}
	} else {
		j.undo()
	}
	j.running = false
	j.taken, j.claimed = j.taken[:0], j.claimed[:0]
	clear(j.net)
}

// undo takes the failed job's part out of the batch, its plan of held rows dropped already
// (held.endJob): its deltas are dropped; the keys it took or claimed go to the batch's claims,
// which gives back before the commit those no later job takes (releaseKeysAhead).
func (j *jobState) undo() {
	st := j.st
	clear(j.net)
	if st.keys.claimed == nil && len(j.claimed) > 0 {
		st.keys.claimed = map[keyRef]service.IdempotencyRecord{}
	}
	for _, keys := range [][]service.IdempotencyRecord{j.taken, j.claimed} {
		for _, k := range keys {
			st.keys.claimed[keyRef{k.AppID, k.Key}] = k
		}
	}
}
