package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// testWriters are writers over a fresh SQLite file, driven by the test itself: no goroutine
// takes jobs, so each step the writer would take is one call.
func testWriters(t *testing.T) *writers {
	t.Helper()
	return testWritersOn(t, filepath.Join(t.TempDir(), "w.db"))
}

// testWritersOn are testWriters over the database of dsn.
func testWritersOn(t *testing.T, dsn string) *writers {
	t.Helper()
	db, err := open(context.Background(), dsn, defaultTuning(), Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &writers{pool: db.writes}
}

func newJob(ctx context.Context, fn func(*sql.Tx, *Batch) error) *job {
	return &job{ctx: ctx, fn: fn, done: make(chan error, 1), tracked: true}
}

// answered returns the job's answer, and whether it has one.
func answered(j *job) (error, bool) {
	select {
	case err := <-j.done:
		return err, true
	default:
		return nil, false
	}
}

// TestRetryWaitsBehindWaitingJobs: a job that fails retryably is handed back to the writer to
// run again later, unanswered, instead of the writer sleeping out its back-off while other jobs
// wait: the job taken next runs first, and the retried job, when due, sees what it wrote.
func TestRetryWaitsBehindWaitingJobs(t *testing.T) {
	w := testWriters(t)
	ctx := context.Background()
	var runsA int
	var ranB bool
	a := newJob(ctx, func(*sql.Tx, *Batch) error {
		runsA++
		if !ranB {
			return fmt.Errorf("lost a conflict: %w", ErrRetry)
		}
		return nil
	})
	b := newJob(ctx, func(*sql.Tx, *Batch) error { ranB = true; return nil })

	retries := w.runBatch([]*job{a})
	if err, ok := answered(a); ok || len(retries) != 1 || retries[0] != a || runsA != 1 {
		t.Fatalf("after a retryable failure: answered %v (%v), %d to retry, %d runs; want unanswered, handed back after 1 run",
			ok, err, len(retries), runsA)
	}
	if waiting := w.runDue(retries); len(waiting) != 1 || runsA != 1 {
		t.Fatalf("before its back-off ended the job ran %d times and %d wait; want 1 run, still waiting", runsA, len(waiting))
	}
	if more := w.runBatch([]*job{b}); len(more) != 0 {
		t.Fatalf("the next job was handed back: %d", len(more))
	}
	if err, ok := answered(b); !ok || err != nil {
		t.Fatalf("the job taken next: answered %v, %v; want nil", ok, err)
	}
	a.retryAt = time.Now() // its back-off is over
	if waiting := w.runDue(retries); len(waiting) != 0 {
		t.Fatalf("%d jobs still wait after the retry ran", len(waiting))
	}
	if err, ok := answered(a); !ok || err != nil || runsA != 2 {
		t.Fatalf("the retried job: answered %v, %v after %d runs; want nil after 2", ok, err, runsA)
	}
}

// TestRetryGivesUp: a job that keeps failing retryably runs maxRuns times and its caller hears
// the error; one whose caller gave up meanwhile is answered with the context's error at once.
func TestRetryGivesUp(t *testing.T) {
	conflict := fmt.Errorf("lost a conflict: %w", ErrRetry)
	t.Run("runs out", func(t *testing.T) {
		w := testWriters(t)
		runs := 0
		j := newJob(context.Background(), func(*sql.Tx, *Batch) error { runs++; return conflict })
		for retries := w.runBatch([]*job{j}); len(retries) > 0; retries = w.runDue(retries) {
			j.retryAt = time.Now()
		}
		if err, ok := answered(j); !ok || !errors.Is(err, ErrRetry) || runs != maxRuns {
			t.Errorf("answered %v, %v after %d runs; want ErrRetry after %d", ok, err, runs, maxRuns)
		}
	})
	t.Run("caller gave up", func(t *testing.T) {
		w := testWriters(t)
		ctx, cancel := context.WithCancel(context.Background())
		runs := 0
		j := newJob(ctx, func(*sql.Tx, *Batch) error { runs++; cancel(); return conflict })
		if retries := w.runBatch([]*job{j}); len(retries) != 0 {
			t.Errorf("a job whose caller gave up was handed back to run again")
		}
		if err, ok := answered(j); !ok || !errors.Is(err, context.Canceled) || runs != 1 {
			t.Errorf("answered %v, %v after %d runs; want context.Canceled after 1", ok, err, runs)
		}
	})
}

// TestCanceledJobOfBatchSkipped: a job taken into a batch whose caller gives up before it starts
// never runs and answers the context's error; the batch's other jobs commit.
func TestCanceledJobOfBatchSkipped(t *testing.T) {
	w := testWriters(t)
	if _, err := w.pool.Exec(`CREATE TABLE items (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	late, giveUp := context.WithCancel(context.Background())
	insert := func(k int) func(*sql.Tx, *Batch) error {
		return func(tx *sql.Tx, b *Batch) error {
			b.Changed()
			_, err := tx.Exec(`INSERT INTO items (k) VALUES (?)`, k)
			return err
		}
	}
	first := newJob(context.Background(), func(tx *sql.Tx, b *Batch) error {
		giveUp() // the next job's caller gives up while this one runs
		return insert(1)(tx, b)
	})
	ranCanceled := false
	canceled := newJob(late, func(tx *sql.Tx, b *Batch) error { ranCanceled = true; return insert(2)(tx, b) })
	last := newJob(context.Background(), insert(3))
	if retries := w.runBatch([]*job{first, canceled, last}); len(retries) != 0 {
		t.Fatalf("%d jobs handed back", len(retries))
	}
	for i, j := range []*job{first, canceled, last} {
		err, ok := answered(j)
		want := error(nil)
		if j == canceled {
			want = context.Canceled
		}
		if !ok || !errors.Is(err, want) {
			t.Errorf("job %d: answered %v, %v; want %v", i, ok, err, want)
		}
	}
	var keys []int
	rows, err := w.pool.Query(`SELECT k FROM items ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k int
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if ranCanceled || fmt.Sprint(keys) != "[1 3]" {
		t.Errorf("canceled job ran: %v; rows %v, want [1 3]", ranCanceled, keys)
	}
}

// TestBatchStart: the batch start runs once in a batch, before the first job, with every job's
// intent, and what it writes stays when a job fails. A job the writer took alone is a batch of
// one and has its start too. When it fails, the batch's jobs run again alone without it and
// commit; a job alone hears its error. A job run again alone has none.
func TestBatchStart(t *testing.T) {
	w := testWriters(t)
	if _, err := w.pool.Exec(`CREATE TABLE items (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		t.Helper()
		if err := w.pool.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var starts []string
	var failStart bool
	startRows := 100 // the start's rows, apart from the jobs'
	start := func(_ context.Context, b *Batch) error {
		starts = append(starts, fmt.Sprint(b.Intents()...))
		if failStart {
			return errors.New("start failed")
		}
		startRows++
		_, err := b.Tx().Exec(`INSERT INTO items (k) VALUES (?)`, startRows)
		return err
	}
	w.start.Store(&start)
	ran, rows := "", 0
	named := func(name string, fail bool) *job {
		return insertingJob(context.Background(), name, fail, &ran, &rows)
	}

	w.runBatch([]*job{named("a", true), named("b", false)})
	if fmt.Sprint(starts) != "[ab]" || ran != "ab" || count() != 2 {
		t.Fatalf("a batch of two: starts %q, jobs ran %q, %d rows; want one start with both intents, both jobs, "+
			"the start's row and b's", starts, ran, count())
	}
	starts, ran = nil, ""
	w.runBatch([]*job{named("c", false)})
	if fmt.Sprint(starts) != "[c]" || ran != "c" || count() != 4 {
		t.Fatalf("a job alone: starts %q, jobs ran %q, %d rows; want a start with its intent, the job, "+
			"a second start's row and c's", starts, ran, count())
	}
	starts, ran, failStart = nil, "", true
	w.runBatch([]*job{named("d", false), named("e", false)})
	if fmt.Sprint(starts) != "[de]" || ran != "de" || count() != 6 {
		t.Fatalf("a failed start: starts %q, jobs ran %q, %d rows; want the jobs run alone, without it, and committed", starts, ran, count())
	}
	starts, ran = nil, ""
	lone := named("f", false)
	w.runBatch([]*job{lone})
	if err := <-lone.done; fmt.Sprint(starts) != "[f]" || ran != "" || count() != 6 || err == nil || err.Error() != "start failed" {
		t.Fatalf("a failed start of a job alone: starts %q, jobs ran %q, %d rows, the job's answer %v; want the start's error "+
			"as the job's, and nothing written", starts, ran, count(), err)
	}
	starts, ran, failStart = nil, "", false
	retry := named("g", false)
	w.runAlone(retry, false)
	if len(starts) != 0 || ran != "g" || count() != 7 {
		t.Fatalf("a job run again alone: starts %q, jobs ran %q, %d rows; want no start", starts, ran, count())
	}
}

// TestCanceledJobsLeftOutOfTheBatch: a job whose caller gave up before the writer began its
// transaction is left out of it: the batch start never sees its intent, the job never runs, and
// its caller hears why. A job alone that was given up begins no transaction at all.
func TestCanceledJobsLeftOutOfTheBatch(t *testing.T) {
	w := testWriters(t)
	if _, err := w.pool.Exec(`CREATE TABLE items (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var starts []string
	start := func(_ context.Context, b *Batch) error {
		starts = append(starts, fmt.Sprint(b.Intents()...))
		return nil
	}
	w.start.Store(&start)
	gone, giveUp := context.WithCancel(context.Background())
	giveUp()
	ran, rows := "", 0
	named := func(ctx context.Context, name string) *job { return insertingJob(ctx, name, false, &ran, &rows) }
	for _, tc := range []struct {
		name           string
		jobs           []*job
		starts, ran    string
		canceled, done []int // the jobs answered context.Canceled, and nil
	}{
		{"one given up in a batch of three", []*job{named(context.Background(), "a"), named(gone, "b"), named(context.Background(), "c")},
			"[ac]", "ac", []int{1}, []int{0, 2}},
		{"one left of two", []*job{named(gone, "d"), named(context.Background(), "e")}, "[e]", "e", []int{0}, []int{1}},
		{"a job alone", []*job{named(gone, "f")}, "[]", "", []int{0}, nil},
		{"all of a batch", []*job{named(gone, "g"), named(gone, "h")}, "[]", "", []int{0, 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			starts, ran = nil, ""
			if retries := w.runBatch(tc.jobs); len(retries) != 0 {
				t.Fatalf("%d jobs handed back", len(retries))
			}
			if got := fmt.Sprint(starts); got != tc.starts || ran != tc.ran {
				t.Errorf("starts %s, jobs ran %q; want %s, %q", got, ran, tc.starts, tc.ran)
			}
			for want, idx := range map[error][]int{context.Canceled: tc.canceled, nil: tc.done} {
				for _, i := range idx {
					if err, ok := answered(tc.jobs[i]); !ok || !errors.Is(err, want) {
						t.Errorf("job %d: answered %v, %v; want %v", i, ok, err, want)
					}
				}
			}
		})
	}
	var n int
	if err := w.pool.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil || n != rows || n != 3 {
		t.Errorf("%d rows stored (%v); want the 3 of the jobs that ran", n, err)
	}
}

var errChanged = errors.New("changed its mind")

// insertingJob is a job with intent name that adds name to *ran and, unless it fails with
// errChanged first, inserts row *rows+1 into items.
func insertingJob(ctx context.Context, name string, fail bool, ran *string, rows *int) *job {
	j := newJob(ctx, func(tx *sql.Tx, b *Batch) error {
		*ran += name
		if fail {
			return errChanged
		}
		b.Changed()
		*rows++
		_, err := tx.Exec(`INSERT INTO items (k) VALUES (?)`, *rows)
		return err
	})
	j.intent = name
	return j
}

// TestJobsAfterAFailedStatement: a job whose statement failed, and which then fails with an error
// of its own without saying it changed anything, has left PostgreSQL's transaction aborted: the
// statements after it fail, and so does the commit, so the batch's jobs run again alone and the
// jobs after it get their own outcomes. The writes of the job before it, too.
func TestJobsAfterAFailedStatement(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		w := testWritersOn(t, dsn)
		if _, err := w.pool.Exec(`CREATE TABLE items (k INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		failed := newJob(ctx, func(tx *sql.Tx, b *Batch) error {
			tx.QueryRow(`SELECT k FROM no_such_table`).Scan(new(int))
			return errChanged
		})
		reads := newJob(ctx, func(tx *sql.Tx, b *Batch) error {
			return tx.QueryRow(`SELECT count(*) FROM items`).Scan(new(int))
		})
		writes := newJob(ctx, func(tx *sql.Tx, b *Batch) error {
			b.Changed()
			_, err := tx.Exec(`INSERT INTO items (k) VALUES (1)`)
			return err
		})
		if retries := w.runBatch([]*job{writes, failed, reads}); len(retries) != 0 {
			t.Fatalf("%d jobs handed back", len(retries))
		}
		for name, c := range map[string]struct {
			j    *job
			want error
		}{"failed": {failed, errChanged}, "reads": {reads, nil}, "writes": {writes, nil}} {
			if err, ok := answered(c.j); !ok || !errors.Is(err, c.want) {
				t.Errorf("%s: answered %v, %v; want %v", name, ok, err, c.want)
			}
		}
		var n int
		if err := w.pool.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d rows (%v), want the one written", n, err)
		}
	})
}
