package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// BenchmarkLookUpIDs finds a transfer by its short id among 1,000,000 transfers with random ids,
// on both engines: the dashboard's search does this for every query of 8 or more hex digits.
//
//	go test ./internal/store -run '^$' -bench LookUpIDs -benchtime 2000x
func BenchmarkLookUpIDs(b *testing.B) {
	for _, engine := range []struct{ name, dsn string }{
		{"sqlite", filepath.Join(b.TempDir(), "bench.db")},
		{"postgres", ""},
	} {
		b.Run(engine.name, func(b *testing.B) {
			dsn := engine.dsn
			if dsn == "" {
				dsn = pgtest.DSN(b)
			}
			benchmarkLookUpIDs(b, dsn)
		})
	}
}

// randomIDs are UUID-shaped ids of random hex digits, made by each engine itself so that a
// million rows go in with one statement.
var randomIDs = map[sqldb.Dialect]string{
	sqldb.SQLite: `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' ||
		hex(randomblob(2)) || '-' || hex(randomblob(6)))`,
	sqldb.Postgres: `gen_random_uuid()::text`,
}

func benchmarkLookUpIDs(b *testing.B, dsn string) {
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const total = 1_000_000
	appID := "00000000-0000-4000-8000-000000000001"
	if err := st.CreateApp(ctx, &service.AppRecord{ID: appID, Name: "bench", ClientID: "ck", Created: t0}); err != nil {
		b.Fatal(err)
	}
	db := st.DB()
	var probe string
	err = db.InTx(ctx, func(tx *sql.Tx) error {
		insert := `INSERT INTO transfers (id, app_id, status, type, amount, created, updated)
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			SELECT ` + randomIDs[db.Dialect] + `, ?, 'completed', 'balance', 100, 0, 0 FROM n`
		// In chunks, each well inside the store's statement timeout on PostgreSQL (30 s).
		const chunk = 100_000
		for range total / chunk {
			if _, err := tx.ExecContext(ctx, sqldb.Rebind(db.Dialect, insert), chunk, appID); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, sqldb.Rebind(db.Dialect, `SELECT id FROM transfers ORDER BY seq LIMIT 1 OFFSET ?`), total/2).Scan(&probe)
	})
	if err != nil {
		b.Fatal(err)
	}
	if db.Dialect == sqldb.Postgres {
		if _, err := db.ExecContext(ctx, `ANALYZE transfers`); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name, text string
		want       int
	}{
		{"found by short id", payouts.ShortID(probe), 1},
		{"found by the beginning", probe[:13], 1},
		{"missing", "ffffffff", 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				found, err := st.LookUpIDs(ctx, appID, bc.text, 10)
				if err != nil || len(found.Transfers) < bc.want {
					b.Fatal(found, err)
				}
			}
		})
	}
}
