package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is what a write answers once the database is closing.
var ErrClosed = errors.New("sqldb: database closed")

// maxBatch bounds how many write transactions share one commit, so a batch's lock and its
// callers' wait stay short.
const maxBatch = 128

// ErrRetry is what a batch's writes before its commit answer when they found the database
// changed under them (a concurrent writer's commit): the jobs are run again, each alone.
var ErrRetry = errors.New("sqldb: a concurrent write changed what the batch read; run again")

// errChangedThenFailed loses a shared batch's transaction: one of its jobs failed after it had
// changed rows, so every job runs again alone.
var errChangedThenFailed = errors.New("sqldb: a job of the batch failed after it changed rows")

// job is one caller's write transaction waiting for a writer.
type job struct {
	ctx  context.Context
	fn   func(*sql.Tx, *Batch) error
	done chan error // buffered: the writer never waits for the caller
	// intent is what the job said beforehand it will read and claim (the store's to read, for
	// all of a batch's jobs at once: Batch.Intents).
	intent any
	// tracked jobs call Batch.Changed before a statement that may change rows; any other job
	// (DB.InTx) is taken to change the database from its start.
	tracked bool
	// runs counts the job's runs alone after a retryable failure; retryAt is when the next may
	// start (writers.retries).
	runs    int
	retryAt time.Time
}

// Batch is what the jobs of one shared transaction share. A store keeps deferred writes in its
// State (the app wallet's deltas of a whole batch, netted to one UPDATE): a job's part is kept
// when the job ends well and dropped when it fails (OnJobEnd), and all of it is written before
// the commit (BeforeCommit).
//
// The jobs share the transaction without a savepoint each. A job that fails having changed
// nothing in the database (Changed) leaves nothing to undo there, and the batch goes on; one
// that fails after it changed rows fails the batch, whose jobs then run again, each alone in its
// own transaction. So does a statement that failed on PostgreSQL, whatever its job did with the
// error: it aborts the transaction, whose later statements and commit then fail.
type Batch struct {
	State   any // the store's, made by the first job that needs it
	shared  bool
	intents []any // of the batch's jobs, in the order they run
	left    int   // jobs not yet ended, the one running included
	jobEnd  func(ok bool)
	flush   func(ctx context.Context, tx *sql.Tx) error
	tx      *sql.Tx
	conn    *sql.Conn // tx's, for a Pipeline
	// changed is set once the running job may have changed rows (Changed).
	changed bool
}

// Shared reports whether the batch runs several jobs: a job that must wait for a lock held
// elsewhere had better fail (and run again alone) than wait.
func (b *Batch) Shared() bool { return b.shared }

// Changed says the running job is about to send a statement that may change rows: from then on
// its failure fails the batch (see Batch). A job that reads, holds its writes for the batch's
// end and then fails is undone by its store alone (OnJobEnd).
func (b *Batch) Changed() { b.changed = true }

// Intents are what the batch's jobs said beforehand they will read and claim (InBatch), in the
// order they run, for a store to read and claim it for all of them at once (DB.OnBatchStart).
func (b *Batch) Intents() []any { return b.intents }

// Tx is the batch's transaction.
func (b *Batch) Tx() *sql.Tx { return b.tx }

// Left is how many of the batch's jobs have not yet ended, the one running now included.
func (b *Batch) Left() int { return b.left }

// OnJobEnd sets what runs when each job ends, from the one running now on: ok when its writes
// stand, not when it failed.
func (b *Batch) OnJobEnd(fn func(ok bool)) { b.jobEnd = fn }

// BeforeCommit sets what runs after the last job and before the commit. Its error aborts the
// batch; ErrRetry runs its jobs again, each alone.
func (b *Batch) BeforeCommit(fn func(ctx context.Context, tx *sql.Tx) error) { b.flush = fn }

func (b *Batch) endJob(ok bool) {
	b.left--
	if b.jobEnd != nil {
		b.jobEnd(ok)
	}
}

// writers apply the write transactions of every caller through writer goroutines (one on
// SQLite, a few on PostgreSQL: see Open) that each take all the jobs waiting and run them in one
// database transaction: one commit, one disk flush for the lot (group commit). Callers wait in a
// Go channel instead of in the engine's lock back-off.
type writers struct {
	pool *sql.DB
	jobs chan *job // unbuffered: a job is either taken by a writer or still its caller's
	quit chan struct{}
	once sync.Once
	wg   sync.WaitGroup
	// between, when set, runs after each batch's commit, before the next batch is taken: the
	// one moment no write transaction is open (SQLite's log restart, see DB.restartLog).
	between func()
	// start, when set, runs in each shared batch's transaction before its first job
	// (DB.OnBatchStart).
	start atomic.Pointer[func(context.Context, *Batch) error]
}

// maxRuns is how many times a job that keeps failing retryably runs alone before its caller
// hears the error.
const maxRuns = 5

// retryWait is how long a job that failed retryably after run n (from 1) waits before it runs
// again: the conflict it lost (a lock another writer holds, SQLite busy) needs time to end.
func retryWait(n int) time.Duration { return time.Duration(n*n) * 5 * time.Millisecond }

func startWriters(pool *sql.DB, n int, between func()) *writers {
	w := &writers{pool: pool, jobs: make(chan *job), quit: make(chan struct{}), between: between}
	for range n {
		w.wg.Add(1)
		go w.run()
	}
	return w
}

// stop lets the batches under way commit and refuses new jobs; stopping again does nothing.
func (w *writers) stop() {
	w.once.Do(func() { close(w.quit) })
	w.wg.Wait()
}

// submit queues fn and waits for its outcome. A job whose caller gives up while it waits is
// answered with the context's error and never run; once a writer has started it, it runs to
// its end under the batch, whole or not at all, and the caller hears how it went.
func (w *writers) submit(ctx context.Context, tracked bool, intent any, fn func(*sql.Tx, *Batch) error) error {
	j := &job{ctx: ctx, fn: fn, done: make(chan error, 1), tracked: tracked, intent: intent}
	select {
	case w.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.quit:
		return ErrClosed
	}
	return <-j.done
}

func (w *writers) run() {
	defer w.wg.Done()
	batch := make([]*job, 0, maxBatch)
	// retries are this writer's jobs that failed retryably, each waiting for its retryAt: the
	// writer takes new jobs meanwhile instead of sleeping while they wait.
	var retries []*job
	for {
		batch = batch[:0]
		var due <-chan time.Time
		var timer *time.Timer
		if len(retries) > 0 {
			first := slices.MinFunc(retries, func(a, b *job) int { return a.retryAt.Compare(b.retryAt) })
			timer = time.NewTimer(time.Until(first.retryAt))
			due = timer.C
		}
		var quit bool
		select {
		case j := <-w.jobs:
			batch = append(batch, j)
		case <-due:
		case <-w.quit:
			quit = true
		}
		if timer != nil {
			timer.Stop()
		}
		if quit {
			// Stopping: the jobs waiting to run again run now, once more, and are answered.
			for _, j := range retries {
				j.retryAt = time.Time{}
				j.runs = maxRuns - 1
			}
			w.runDue(retries)
			return
		}
	take:
		for len(batch) > 0 && len(batch) < maxBatch {
			select {
			case j := <-w.jobs:
				batch = append(batch, j)
			default:
				break take
			}
		}
		if len(batch) > 0 {
			retries = append(retries, w.runBatch(batch)...)
			w.afterBatch()
		}
		retries = w.runDue(retries)
	}
}

func (w *writers) afterBatch() {
	if w.between != nil {
		w.between()
	}
}

// runDue runs, each alone, the jobs of retries whose time has come, and returns those still
// waiting and those that failed retryably again.
func (w *writers) runDue(retries []*job) []*job {
	now := time.Now()
	var waiting []*job
	for _, j := range retries {
		if j.retryAt.After(now) {
			waiting = append(waiting, j)
			continue
		}
		waiting = append(waiting, w.runAlone(j, false)...)
		w.afterBatch()
	}
	return waiting
}

// runBatch applies a batch and answers its callers after the commit. A job that failed having
// changed nothing answers its own error; a job of a batch whose transaction failed as a whole
// (see Batch) runs again at once, alone. A job that failed retryably (a lost deadlock, a row
// another batch holds, SQLite busy) is returned, to run again alone later.
func (w *writers) runBatch(batch []*job) (retries []*job) {
	if len(batch) == 1 {
		return w.runAlone(batch[0], true)
	}
	errs, txErr := w.apply(batch, true)
	for i, j := range batch {
		if txErr != nil {
			retries = append(retries, w.runAlone(j, false)...)
			continue
		}
		j.runs++
		retries = append(retries, w.answer(j, errs[i])...)
	}
	return retries
}

// runAlone runs a job in its own transaction. A job the writer took alone is a batch of one, for
// which the store's batch start runs first (withStart): it reads what the job said it would, so
// its error is the job's. A job run again, after its batch failed or to retry, runs without it.
func (w *writers) runAlone(j *job, withStart bool) (retry []*job) {
	errs, err := w.apply([]*job{j}, withStart)
	if err == nil {
		err = errs[0]
	}
	j.runs++
	return w.answer(j, err)
}

// answer tells the job's caller err, or returns the job to run again later when err is
// retryable and the job has runs left. A caller that gave up meanwhile hears why.
func (w *writers) answer(j *job, err error) (retry []*job) {
	switch {
	case !IsRetryable(err):
	case j.ctx.Err() != nil:
		err = j.ctx.Err()
	case j.runs < maxRuns:
		j.retryAt = time.Now().Add(retryWait(j.runs))
		return []*job{j}
	}
	j.done <- err
	return nil
}

// apply runs the jobs in one transaction and commits it; errs holds each job's own error. txErr
// is the error that lost the whole transaction, nil when it committed: with several jobs, a job
// that fails after it changed rows loses it (errChangedThenFailed), and so does a failed batch
// start, which runs first when withStart. A job whose caller gave up before the transaction
// began is left out of it, its intent too, and hears why; with none left, none begins.
func (w *writers) apply(jobs []*job, withStart bool) (errs []error, txErr error) {
	errs = make([]error, len(jobs))
	var live []int // the jobs whose callers still wait, by index
	for i, j := range jobs {
		if errs[i] = j.ctx.Err(); errs[i] == nil {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return errs, nil
	}
	// The batch outlives any one caller: a caller's cancellation must not abort the others.
	ctx := context.Background()
	conn, err := w.pool.Conn(ctx)
	if err != nil {
		return errs, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return errs, err
	}
	single := len(live) == 1
	batch := &Batch{shared: !single, left: len(live), intents: make([]any, len(live)), tx: tx, conn: conn}
	for k, i := range live {
		batch.intents[k] = jobs[i].intent
	}
	if start := w.start.Load(); start != nil && withStart {
		if err := (*start)(ctx, batch); err != nil {
			tx.Rollback()
			return errs, err
		}
	}
	for _, i := range live {
		j := jobs[i]
		if errs[i] = j.ctx.Err(); errs[i] != nil {
			batch.left-- // never run
			continue
		}
		if single {
			if errs[i] = j.fn(tx, batch); errs[i] != nil {
				tx.Rollback()
				return errs, nil
			}
			batch.endJob(true)
			break
		}
		batch.changed = !j.tracked
		errs[i] = j.fn(tx, batch)
		if errs[i] != nil && batch.changed {
			// What it changed cannot be taken out of the transaction alone.
			tx.Rollback()
			return errs, fmt.Errorf("%w: %w", errChangedThenFailed, errs[i])
		}
		batch.endJob(errs[i] == nil)
	}
	if batch.flush != nil {
		if err := batch.flush(ctx, tx); err != nil {
			tx.Rollback()
			return errs, err
		}
	}
	return errs, tx.Commit()
}
