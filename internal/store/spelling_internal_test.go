package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestSpellingDecidesNothing: what a write transaction does before a statement (write the rows
// it holds back, drop its copies of rows it read) must not depend on how the statement is
// spelled. A read of a held table, however written, sees the rows held; a write of a copied
// table, however written, is seen by the next read of the copy.
func TestSpellingDecidesNothing(t *testing.T) {
	spellings := []struct{ name, countTransfers, renameApp string }{
		{"as the store writes it", `SELECT count(*) FROM transfers WHERE id = ?`, `UPDATE apps SET name = ? WHERE id = ?`},
		{"upper case", `SELECT COUNT(*) FROM TRANSFERS WHERE ID = ?`, `UPDATE APPS SET NAME = ? WHERE ID = ?`},
		{"lower case", `select count(*) from transfers where id = ?`, `update apps set name = ? where id = ?`},
		{"quoted", `SELECT count(*) FROM "transfers" WHERE id = ?`, `UPDATE "apps" SET name = ? WHERE id = ?`},
		{"laid out", "SELECT count(*)\n\tFROM\ttransfers\nWHERE id = ?", "UPDATE\n\tapps\nSET name = ? WHERE id = ?"},
	}
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := storeWithApp(t, dsn)
		for i, s := range spellings {
			t.Run(s.name, func(t *testing.T) {
				transfer := &service.TransferRecord{AppID: appID, Updated: t0, Transfer: payouts.Transfer{
					ID: "30000000-0000-4000-8000-00000000000" + string(rune('0'+i)), Created: payouts.NewTime(t0),
					Type: payouts.TransferRefill, Amount: 1, Status: payouts.TransferCompleted}}
				name := "renamed " + s.name
				err := st.InTx(ctx, func(sq service.Queries) error {
					q := sq.(txQueries)
					if err := q.CreateTransfer(ctx, transfer); err != nil {
						return err
					}
					var n int
					if err := q.queryRow(ctx, s.countTransfers, transfer.ID).Scan(&n); err != nil {
						return err
					}
					if n != 1 {
						t.Errorf("%q saw %d transfers held, want 1", s.countTransfers, n)
					}
					return renameSeen(ctx, t, q, name, func() error {
						_, err := q.exec(ctx, s.renameApp, name, appID)
						return err
					})
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestEveryStatementSeesTheBatch: a job's statement sees the transfers held before it in its
// batch, whether it reads (read, readRow, scanRows) or may change rows (query, queryRow), and
// after a statement that may change rows (exec, execOne, query, queryRow) no read answers a copy
// of the batch view made before it.
func TestEveryStatementSeesTheBatch(t *testing.T) {
	const countTransfers = `SELECT count(*) FROM transfers WHERE id = ?`
	scanCount := func(rows *sql.Rows, err error) (int, error) {
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if err := rows.Scan(&n); err != nil {
				return 0, err
			}
		}
		return n, rows.Err()
	}
	counts := []struct {
		name  string
		count func(ctx context.Context, q txQueries, id string) (int, error)
	}{
		{"readRow", func(ctx context.Context, q txQueries, id string) (n int, err error) {
			return n, q.readRow(ctx, countTransfers, id).Scan(&n)
		}},
		{"read", func(ctx context.Context, q txQueries, id string) (int, error) {
			return scanCount(q.read(ctx, countTransfers, id))
		}},
		{"scanRows", func(ctx context.Context, q txQueries, id string) (n int, err error) {
			return n, q.scanRows(ctx, reading, countTransfers, []any{id}, func(r *sql.Rows) error { return r.Scan(&n) })
		}},
		{"queryRow", func(ctx context.Context, q txQueries, id string) (n int, err error) {
			return n, q.queryRow(ctx, countTransfers, id).Scan(&n)
		}},
		{"query", func(ctx context.Context, q txQueries, id string) (int, error) {
			return scanCount(q.query(ctx, countTransfers, id))
		}},
		{"GetTransfer", func(ctx context.Context, q txQueries, id string) (int, error) {
			_, err := q.GetTransfer(ctx, appID, id)
			if errors.Is(err, service.ErrNoRecord) {
				return 0, nil
			}
			return 1, err
		}},
	}
	const rename = `UPDATE apps SET name = ? WHERE id = ?`
	changes := []struct {
		name   string
		change func(ctx context.Context, q txQueries, name, appID string) error
	}{
		{"exec", func(ctx context.Context, q txQueries, name, appID string) error {
			_, err := q.exec(ctx, rename, name, appID)
			return err
		}},
		{"execOne", func(ctx context.Context, q txQueries, name, appID string) error {
			return q.execOne(ctx, rename, name, appID)
		}},
		{"queryRow", func(ctx context.Context, q txQueries, name, appID string) error {
			return q.queryRow(ctx, rename+` RETURNING name`, name, appID).Scan(&name)
		}},
		{"query", func(ctx context.Context, q txQueries, name, appID string) error {
			_, err := scanCount(q.query(ctx, rename+` RETURNING 1`, name, appID))
			return err
		}},
	}
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := storeWithApp(t, dsn)
		n := 0
		for _, c := range counts {
			t.Run("held transfer read by "+c.name, func(t *testing.T) {
				err := st.InTx(ctx, func(sq service.Queries) error {
					q := sq.(txQueries)
					// The second is held after the first was written (by the first count).
					for range 2 {
						n++
						transfer := &service.TransferRecord{AppID: appID, Updated: t0, Transfer: payouts.Transfer{
							ID: fmt.Sprintf("31000000-0000-4000-8000-%012d", n), Created: payouts.NewTime(t0),
							Type: payouts.TransferRefill, Amount: 1, Status: payouts.TransferCompleted}}
						if err := q.CreateTransfer(ctx, transfer); err != nil {
							return err
						}
						got, err := c.count(ctx, q, transfer.ID)
						if err != nil {
							return err
						}
						if got != 1 {
							t.Errorf("%s saw %d of transfer %d held, want 1", c.name, got, n)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
		for _, c := range changes {
			t.Run("app renamed by "+c.name, func(t *testing.T) {
				name := "renamed by " + c.name
				err := st.InTx(ctx, func(sq service.Queries) error {
					q := sq.(txQueries)
					return renameSeen(ctx, t, q, name, func() error { return c.change(ctx, q, name, appID) })
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

const appID = "00000000-0000-4000-8000-000000000001"

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// storeWithApp opens a store on dsn with one app, appID, named acme.
func storeWithApp(t *testing.T, dsn string) *Store {
	t.Helper()
	st, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateApp(context.Background(), &service.AppRecord{ID: appID, Name: "acme", ClientID: "ck_acme",
		KeyHash: []byte("hash"), Created: t0}); err != nil {
		t.Fatal(err)
	}
	return st
}

// renameSeen reads the app, which the batch view copies, renames it to name by rename, and fails
// t unless the next read of the app answers the new name.
func renameSeen(ctx context.Context, t *testing.T, q txQueries, name string, rename func() error) error {
	t.Helper()
	if _, err := q.GetApp(ctx, appID); err != nil {
		return err
	}
	if err := rename(); err != nil {
		return err
	}
	a, err := q.GetApp(ctx, appID)
	if err != nil {
		return err
	}
	if a.Name != name {
		t.Errorf("after the rename the app reads %q, want %q", a.Name, name)
	}
	return nil
}
