package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// rawDB is a migrated PostgreSQL database with one app and the raw transfer's tables.
func rawDB(t *testing.T) (*sql.DB, *rawWorld) {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	st, err := store.Open(ctx, dsn) // payoutd's schema, which the raw tables copy
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, `INSERT INTO apps (id, name, client_id, created) VALUES ('app1', 'App', 'ck_1', 0)`); err != nil {
		t.Fatal(err)
	}
	w, err := makeRawTables(ctx, db, "app1", 5)
	if err != nil {
		t.Fatal(err)
	}
	return db, w
}

// rawCounts is what the raw tables hold: rows of each, and the sum of every account's balance.
type rawCounts struct {
	keys, transfers, postings, events int
	balances                          int64
}

// countRaw counts the raw tables, whose names begin with prefix.
func countRaw(t *testing.T, db *sql.DB, prefix string) rawCounts {
	t.Helper()
	var c rawCounts
	err := db.QueryRow(strings.ReplaceAll(`SELECT (SELECT count(*) FROM PREFIXidempotency_keys), (SELECT count(*) FROM PREFIXtransfers),
		(SELECT count(*) FROM PREFIXpostings), (SELECT count(*) FROM PREFIXevents),
		(SELECT sum(credits_posted - debits_posted) FROM PREFIXledger_accounts)`, "PREFIX", prefix)).
		Scan(&c.keys, &c.transfers, &c.postings, &c.events, &c.balances)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRawTransferWritesAllOrNothing: a raw transfer that commits stores its key, transfer,
// posting and three events and moves the cent; one whose key was taken or whose debit would
// overdraw stores nothing at all.
func TestRawTransferWritesAllOrNothing(t *testing.T) {
	db, w := rawDB(t)
	ctx := context.Background()
	start := countRaw(t, db, "loadgen_raw_")

	n, err := rawLoad(ctx, db, w, 4, 200*time.Millisecond, w.viaApp)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rawLoad(ctx, db, w, 4, 200*time.Millisecond, w.betweenUsers)
	if err != nil {
		t.Fatal(err)
	}
	want := rawCounts{keys: n + m, transfers: n + m, postings: n + m, events: 3 * (n + m), balances: start.balances}
	if got := countRaw(t, db, "loadgen_raw_"); n == 0 || m == 0 || got != want {
		t.Fatalf("after %d and %d transfers the tables hold %+v, want %+v", n, m, got, want)
	}

	var empty int64
	if err := db.QueryRow(`INSERT INTO loadgen_raw_ledger_accounts (app_id, kind, ref) VALUES ('app1', 'user_wallet', 'empty') RETURNING id`).Scan(&empty); err != nil {
		t.Fatal(err)
	}
	taken := rawMove{debit: w.app, credit: w.users[0].account, user: w.users[0].ref, amount: -1}
	for _, tc := range []struct {
		name string
		move func() error
	}{
		{"overdraft", func() error {
			return rawTransferOnce(ctx, db, w, "k0", rawMove{debit: empty, credit: w.app, user: "empty", amount: 1})
		}},
		{"key taken", func() error {
			if _, err := db.Exec(`INSERT INTO loadgen_raw_idempotency_keys (app_id, key, operation, request_hash, created)
				VALUES ('app1', 'k1', 'transfer', '', 0)`); err != nil {
				return err
			}
			return rawTransferOnce(ctx, db, w, "k1", taken)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := countRaw(t, db, "loadgen_raw_")
			if tc.name == "key taken" {
				before.keys++ // the key the test claims itself
			}
			if err := tc.move(); err == nil {
				t.Fatal("the transfer committed")
			}
			if got := countRaw(t, db, "loadgen_raw_"); got != before {
				t.Fatalf("a failed transfer left %+v, want %+v", got, before)
			}
		})
	}
}

// TestRawSQLiteGroupCommitWritesAllOrNothing: the SQLite baseline's transfers that commit store
// their key, transfer, posting and three events and move the cent; one whose debit would
// overdraw, in the same batch as others, stores nothing, and the others commit.
func TestRawSQLiteGroupCommitWritesAllOrNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "raw.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	w, err := makeRawSQLiteWorld(ctx, db, 5)
	if err != nil {
		t.Fatal(err)
	}
	start := countRaw(t, db, "")
	n, _, err := rawSQLiteLoad(ctx, db, w, 4, 200*time.Millisecond, w.viaApp)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := rawSQLiteLoad(ctx, db, w, 4, 200*time.Millisecond, w.betweenUsers)
	if err != nil {
		t.Fatal(err)
	}
	want := rawCounts{keys: n + m, transfers: n + m, postings: n + m, events: 3 * (n + m), balances: start.balances}
	if got := countRaw(t, db, ""); n == 0 || m == 0 || got != want {
		t.Fatalf("after %d and %d transfers the tables hold %+v, want %+v", n, m, got, want)
	}

	var empty int64
	if err := db.QueryRow(`INSERT INTO ledger_accounts (app_id, kind, ref) VALUES (?, 'user_wallet', 'empty') RETURNING id`, w.appID).Scan(&empty); err != nil {
		t.Fatal(err)
	}
	good := rawMove{debit: w.app, credit: w.users[0].account, user: w.users[0].ref, amount: -1}
	batch := []*rawJob{
		{key: "k1", move: good},
		{key: "k2", move: rawMove{debit: empty, credit: w.app, user: "empty", amount: 1}},
		{key: "k1", move: good}, // its key taken by the first
		{key: "k3", move: good},
	}
	errs, err := rawSQLiteBatch(ctx, db, w, batch)
	if err != nil {
		t.Fatal(err)
	}
	for i, wantRefused := range []bool{false, true, true, false} {
		if errors.Is(errs[i], errRawRefused) != wantRefused {
			t.Errorf("transfer %d: %v, want refused %v", i, errs[i], wantRefused)
		}
	}
	want = rawCounts{keys: want.keys + 2, transfers: want.transfers + 2, postings: want.postings + 2, events: want.events + 6, balances: want.balances}
	if got := countRaw(t, db, ""); got != want {
		t.Fatalf("after a batch of two good transfers and two refused the tables hold %+v, want %+v", got, want)
	}
}
