package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPostgresTimeouts: on PostgreSQL a write that waits for a row another connection holds, and
// a statement that runs too long, fail with an error their caller gets, instead of waiting on.
func TestPostgresTimeouts(t *testing.T) {
	ctx := context.Background()
	db, err := sqldb.OpenWith(ctx, pgtest.DSN(t), sqldb.Timeouts{Lock: 100 * time.Millisecond, Statement: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, `CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
		INSERT INTO accounts VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, wantCode string
		run            func() error
	}{
		{"a write waits for a row another connection holds", "55P03", func() error {
			holder, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer holder.Rollback()
			if _, err := holder.ExecContext(ctx, `UPDATE accounts SET balance = balance + 1 WHERE id = 1`); err != nil {
				return err
			}
			return db.InTx(ctx, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + 2 WHERE id = 1`)
				return err
			})
		}},
		{"a write runs too long", "57014", func() error {
			return db.InTx(ctx, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `SELECT pg_sleep(10)`)
				return err
			})
		}},
		{"a read runs too long", "57014", func() error {
			_, err := db.ExecContext(ctx, `SELECT pg_sleep(10)`)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != tt.wantCode {
				t.Errorf("got %v, want PostgreSQL error %s", err, tt.wantCode)
			}
		})
	}
	var balance int
	if err := db.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = 1`).Scan(&balance); err != nil || balance != 0 {
		t.Errorf("balance %d, %v; want 0: nothing timed out was written", balance, err)
	}
}
