package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/sqldb"
)

var errRefused = errors.New("refused by the job")

// TestInTxKeepsEachOutcome runs many write transactions at once, so the writers group them in
// shared commits, and checks that each caller gets its own outcome: a job that fails, by its
// own error or by a constraint, leaves nothing behind, and the others commit whole.
func TestInTxKeepsEachOutcome(t *testing.T) {
	engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `CREATE TABLE items (k INTEGER PRIMARY KEY, job INTEGER NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		insert := func(tx *sql.Tx, k, job int) error {
			_, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO items (k, job) VALUES (?, ?)`), k, job)
			return err
		}
		const jobs = 200
		errs := make([]error, jobs)
		var wg sync.WaitGroup
		for i := range jobs {
			wg.Go(func() {
				errs[i] = db.InTx(ctx, func(tx *sql.Tx) error {
					if err := insert(tx, i, i); err != nil {
						return err
					}
					switch i % 4 {
					case 1: // fails after a write of its own
						return errRefused
					case 2: // every such job takes key 100000: one wins, the others break the key
						return insert(tx, 100000, i)
					}
					return nil
				})
			})
		}
		wg.Wait()

		want := map[int]int{} // committed key -> job
		winners := 0
		for i, err := range errs {
			switch {
			case i%4 == 1:
				if !errors.Is(err, errRefused) {
					t.Errorf("job %d: %v, want its own error", i, err)
				}
			case i%4 == 2 && err != nil:
				if !sqldb.IsUniqueViolation(err) {
					t.Errorf("job %d: %v, want a unique violation", i, err)
				}
			case err != nil:
				t.Errorf("job %d: %v", i, err)
			default:
				want[i] = i
				if i%4 == 2 {
					winners++
					want[100000] = i
				}
			}
		}
		if winners != 1 {
			t.Errorf("%d jobs took the shared key, want 1", winners)
		}
		rows, err := db.QueryContext(ctx, `SELECT k, job FROM items`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[int]int{}
		for rows.Next() {
			var k, job int
			if err := rows.Scan(&k, &job); err != nil {
				t.Fatal(err)
			}
			got[k] = job
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("committed rows %v, want %v", got, want)
		}
	})
}

// TestInTxCanceledNeverRuns: a caller that gave up before its job was taken gets the context's
// error and the job never runs.
func TestInTxCanceledNeverRuns(t *testing.T) {
	engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ran := false
		err := db.InTx(ctx, func(*sql.Tx) error { ran = true; return nil })
		if !errors.Is(err, context.Canceled) || ran {
			t.Errorf("InTx with a canceled context: %v, ran %v; want context.Canceled, not run", err, ran)
		}
	})
}

// TestInBatchJobsFailAlone: jobs share a transaction without a savepoint each, and each still
// gets its own outcome. A job that fails before it changes anything (Batch.Changed) leaves
// nothing to undo, and its batch commits the others'; one that fails after it changed rows, or
// after a statement of its failed (which aborts the whole transaction on PostgreSQL, whatever
// the job did with the error), makes its batch's jobs run again alone, and nothing of it stays.
func TestInBatchJobsFailAlone(t *testing.T) {
	engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `CREATE TABLE items (k INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		const (
			writes = iota
			writesThenFails
			failsFirst
			failedStatement
			sendsNothing
			reads
			kinds
		)
		const jobs = 300
		errs := make([]error, jobs)
		var wg sync.WaitGroup
		for i := range jobs {
			wg.Go(func() {
				errs[i] = db.InBatch(ctx, nil, func(tx *sql.Tx, b *sqldb.Batch) error {
					switch i % kinds {
					case failsFirst:
						return errRefused
					case sendsNothing:
						return nil
					case reads:
						return tx.QueryRowContext(ctx, `SELECT count(*) FROM items`).Scan(new(int))
					case failedStatement:
						// Its error is not the statement's: the writer must not need to see it.
						tx.QueryRowContext(ctx, `SELECT k FROM no_such_table`).Scan(new(int))
						return errRefused
					}
					b.Changed()
					if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO items (k) VALUES (?)`), i); err != nil {
						return err
					}
					if i%kinds == writesThenFails {
						return errRefused
					}
					return nil
				})
			})
		}
		wg.Wait()
		var want []int
		for i, err := range errs {
			switch i % kinds {
			case writesThenFails, failsFirst, failedStatement:
				if !errors.Is(err, errRefused) {
					t.Errorf("job %d: %v, want its own error", i, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("job %d: %v", i, err)
			}
			if i%kinds == writes {
				want = append(want, i)
			}
		}
		rows, err := db.QueryContext(ctx, `SELECT k FROM items ORDER BY k`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []int
		for rows.Next() {
			var k int
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			got = append(got, k)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("committed rows %v, want %v", got, want)
		}
	})
}
