package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/disburse/disburse/internal/sqldb"

	"github.com/jackc/pgx/v5/pgconn"
)

func createCounter(t *testing.T, db *sqldb.DB) {
	t.Helper()
	if _, err := db.Exec(`CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, db *sqldb.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM counter`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestInTx(t *testing.T) {
	errBoom := errors.New("boom")
	serialization := &pgconn.PgError{Code: "40001"}
	deadlock := &pgconn.PgError{Code: "40P01"}
	tests := []struct {
		name      string
		failures  []error // what fn returns on its first attempts; nil afterwards
		wantErr   error
		wantCalls int
		wantRows  int
	}{
		{"commits", nil, nil, 1, 1},
		{"rolls back on an error and does not retry it", []error{errBoom}, errBoom, 1, 0},
		{"retries a serialization failure", []error{serialization}, nil, 2, 1},
		{"retries a deadlock", []error{deadlock, deadlock}, nil, 3, 1},
		{"gives up after five attempts", []error{deadlock, deadlock, deadlock, deadlock, deadlock, deadlock}, deadlock, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			engines(t, func(t *testing.T, db *sqldb.DB) {
				createCounter(t, db)
				calls := 0
				err := db.InTx(context.Background(), func(tx *sql.Tx) error {
					calls++
					// Every attempt writes; only the committed one may remain.
					if _, err := tx.Exec(db.Rebind(`INSERT INTO counter (id, n) VALUES (?, ?)`), calls, calls); err != nil {
						return err
					}
					if calls <= len(tt.failures) {
						return tt.failures[calls-1]
					}
					return nil
				})
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("InTx = %v, want %v", err, tt.wantErr)
				}
				if calls != tt.wantCalls {
					t.Errorf("fn ran %d times, want %d", calls, tt.wantCalls)
				}
				if got := count(t, db); got != tt.wantRows {
					t.Errorf("%d rows after InTx, want %d", got, tt.wantRows)
				}
			})
		})
	}
}

func TestInTxStopsWhenContextEnds(t *testing.T) {
	db := open(t, t.TempDir()+"/test.db")
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := db.InTx(ctx, func(*sql.Tx) error {
		calls++
		cancel()
		return &pgconn.PgError{Code: "40001"}
	})
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("InTx = %v after %d calls, want context.Canceled after 1", err, calls)
	}
}

func TestIsUniqueViolation(t *testing.T) {
	engines(t, func(t *testing.T, db *sqldb.DB) {
		createCounter(t, db)
		insert := db.Rebind(`INSERT INTO counter (id, n) VALUES (?, ?)`)
		if _, err := db.Exec(insert, 1, 1); err != nil {
			t.Fatal(err)
		}
		_, err := db.Exec(insert, 1, 2)
		if !sqldb.IsUniqueViolation(err) {
			t.Errorf("duplicate key: IsUniqueViolation(%v) = false", err)
		}
		_, err = db.Exec(db.Rebind(`INSERT INTO counter (id, n) VALUES (?, NULL)`), 2)
		if err == nil || sqldb.IsUniqueViolation(err) {
			t.Errorf("NOT NULL failure: IsUniqueViolation(%v) = true or no error", err)
		}
		if sqldb.IsRetryable(err) {
			t.Errorf("NOT NULL failure counted as retryable: %v", err)
		}
	})
}
