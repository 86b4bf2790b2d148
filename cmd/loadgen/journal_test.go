package main

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// journalTestDB is a database with payoutd's schema (on PostgreSQL the raw transfer's copies of
// its tables), an app with five funded users, and an empty journal.
func journalTestDB(t *testing.T, dsn string) (journalDB, *rawWorld) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	jd := journalDB{dialect: sqldb.SQLite, reopen: func() (*sql.DB, error) { return openRawSQLite(dsn) }}
	if isPostgres(dsn) {
		jd = journalDB{dialect: sqldb.Postgres, prefix: "loadgen_raw_", reopen: func() (*sql.DB, error) { return openRawPostgres(dsn) }}
	}
	if jd.db, err = jd.reopen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jd.db.Close() })
	var w *rawWorld
	if jd.dialect == sqldb.Postgres {
		if _, err = jd.db.ExecContext(ctx, `INSERT INTO apps (id, name, client_id, key_hash, created) VALUES ('app1', 'App', 'ck_1', '\x00', 0)`); err == nil {
			w, err = makeRawTables(ctx, jd.db, "app1", 5)
		}
	} else {
		w, err = makeRawSQLiteWorld(ctx, jd.db, 5)
	}
	if err == nil {
		err = makeJournalTables(ctx, jd)
	}
	if err != nil {
		t.Fatal(err)
	}
	return jd, w
}

// journalCounts is what the journal and the derived tables hold.
type journalCounts struct {
	journal int
	rawCounts
}

func countJournal(t *testing.T, jd journalDB) journalCounts {
	t.Helper()
	c := journalCounts{rawCounts: countRaw(t, jd.db, jd.prefix)}
	if err := jd.db.QueryRow(jd.q(`SELECT count(*) FROM %s`, "journal")).Scan(&c.journal); err != nil {
		t.Fatal(err)
	}
	return c
}

// journalBatch commits jobs of the given keys and moves through a journal writer.
func journalBatch(t *testing.T, jw *journalWriter, jobs ...*rawJob) []error {
	t.Helper()
	errs, err := jw.commit(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// TestJournalWritesAllOrNothing: a journal batch stores one journal row per accepted transfer
// and moves the cents; a transfer whose debit would overdraw, or whose key the journal or the
// batch holds already (also for a writer started again), stores nothing while the others commit;
// and a batch whose netted update a wallet's guard refuses stores nothing at all.
func TestJournalWritesAllOrNothing(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		jd, w := journalTestDB(t, dsn)
		start := countJournal(t, jd)
		jw, err := newJournalWriter(ctx, jd, w.appID)
		if err != nil {
			t.Fatal(err)
		}
		n, err := rawGroupCommitLoad(ctx, 4, 200*time.Millisecond, w.viaApp, func(batch []*rawJob) ([]error, error) {
			return jw.commit(ctx, batch)
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := start
		want.journal += n
		if got := countJournal(t, jd); n == 0 || got != want {
			t.Fatalf("after %d transfers the tables hold %+v, want %+v", n, got, want)
		}

		var empty int64
		if err := jd.db.QueryRow(jd.q(`INSERT INTO %s (app_id, kind, ref) VALUES (?, 'user_wallet', 'empty') RETURNING id`, "ledger_accounts"),
			w.appID).Scan(&empty); err != nil {
			t.Fatal(err)
		}
		good := rawMove{debit: w.app, credit: w.users[0].account, user: w.users[0].ref, amount: -1}
		overdraft := rawMove{debit: empty, credit: w.app, user: "empty", amount: 1}
		for _, tc := range []struct {
			name    string
			restart bool // a new writer, which knows the keys only from the journal
			jobs    []*rawJob
			refused []bool
		}{
			{"overdraft and a key twice in a batch", false, []*rawJob{{key: "k1", move: good}, {key: "k2", move: overdraft},
				{key: "k1", move: good}, {key: "k3", move: good}}, []bool{false, true, true, false}},
			{"a key of an earlier batch", false, []*rawJob{{key: "k3", move: good}, {key: "k4", move: good}}, []bool{true, false}},
			{"a key of the journal, the writer started again", true, []*rawJob{{key: "k1", move: good}, {key: "k5", move: good}}, []bool{true, false}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.restart {
					if jw, err = newJournalWriter(ctx, jd, w.appID); err != nil {
						t.Fatal(err)
					}
				}
				before := countJournal(t, jd)
				errs := journalBatch(t, jw, tc.jobs...)
				accepted := 0
				for i, wantRefused := range tc.refused {
					if errors.Is(errs[i], errRawRefused) != wantRefused {
						t.Errorf("transfer %d: %v, want refused %v", i, errs[i], wantRefused)
					}
					if !wantRefused {
						accepted++
					}
				}
				before.journal += accepted
				if got := countJournal(t, jd); got != before {
					t.Fatalf("the tables hold %+v, want %+v", got, before)
				}
			})
		}

		t.Run("a guard refuses the netted update", func(t *testing.T) {
			// The writer meets the wallet, whose money is then spent behind its back: the balance it
			// holds is stale.
			journalBatch(t, jw, &rawJob{key: "k6", move: rawMove{debit: w.app, credit: w.users[1].account, user: w.users[1].ref, amount: -1}})
			if _, err := jd.db.Exec(jd.q(`UPDATE %s SET debits_posted = credits_posted WHERE id = ?`, "ledger_accounts"), w.users[1].account); err != nil {
				t.Fatal(err)
			}
			before := countJournal(t, jd)
			var appBefore int64
			if err := jd.db.QueryRow(jd.q(`SELECT credits_posted - debits_posted FROM %s WHERE id = ?`, "ledger_accounts"), w.app).Scan(&appBefore); err != nil {
				t.Fatal(err)
			}
			_, err := jw.commit(ctx, []*rawJob{{key: "k7", move: good},
				{key: "k8", move: rawMove{debit: w.users[1].account, credit: w.app, user: w.users[1].ref, amount: 1}}})
			if !errors.Is(err, errJournalGuard) {
				t.Fatalf("the batch: %v, want %v", err, errJournalGuard)
			}
			var appAfter int64
			if err := jd.db.QueryRow(jd.q(`SELECT credits_posted - debits_posted FROM %s WHERE id = ?`, "ledger_accounts"), w.app).Scan(&appAfter); err != nil {
				t.Fatal(err)
			}
			if got := countJournal(t, jd); got != before || appAfter != appBefore {
				t.Fatalf("a refused batch left %+v and the app at %d, want %+v and %d", got, appAfter, before, appBefore)
			}
		})
	})
}

// TestDeriverDerivesEachRowOnce: the deriver, stopped between chunks or killed inside one (a
// statement of the chunk fails, or the mark's update does) and started again on a new
// connection, derives every journal row into its key, transfer, posting and three events once:
// none lost, none twice, and the mark ends at the journal's last row.
func TestDeriverDerivesEachRowOnce(t *testing.T) {
	type statements struct{ sqlite, postgres []string }
	faults := []struct {
		name string
		// What makes the second chunk fail, and what removes it; none: the deriver is stopped
		// after its first chunk.
		make, undo statements
	}{
		{name: "stopped between chunks"},
		{"killed inside a chunk",
			statements{[]string{`CREATE TRIGGER fault BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'fault'); END`},
				[]string{pgFault, `CREATE TRIGGER fault BEFORE INSERT ON loadgen_raw_events FOR EACH STATEMENT EXECUTE FUNCTION fault()`}},
			statements{[]string{`DROP TRIGGER fault`}, []string{`DROP TRIGGER fault ON loadgen_raw_events`, `DROP FUNCTION fault`}}},
		{"killed at the mark",
			statements{[]string{`CREATE TRIGGER fault BEFORE UPDATE ON journal_derived BEGIN SELECT RAISE(ABORT, 'fault'); END`},
				[]string{pgFault, `CREATE TRIGGER fault BEFORE UPDATE ON loadgen_raw_journal_derived FOR EACH STATEMENT EXECUTE FUNCTION fault()`}},
			statements{[]string{`DROP TRIGGER fault`}, []string{`DROP TRIGGER fault ON loadgen_raw_journal_derived`, `DROP FUNCTION fault`}}},
	}
	exec := func(t *testing.T, jd journalDB, s statements) {
		t.Helper()
		stmts := s.sqlite
		if jd.dialect == sqldb.Postgres {
			stmts = s.postgres
		}
		for _, stmt := range stmts {
			if _, err := jd.db.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		jd, w := journalTestDB(t, dsn)
		jw, err := newJournalWriter(ctx, jd, w.appID)
		if err != nil {
			t.Fatal(err)
		}
		const chunk = 10
		for _, f := range faults {
			t.Run(f.name, func(t *testing.T) {
				start := countJournal(t, jd)
				for i := range 3 { // 35 rows: three chunks and a part
					journalBatch(t, jw, jobsOf(w, 12-i)...)
				}
				rows := countJournal(t, jd).journal - start.journal

				first := &journalDeriver{jd: jd, chunk: chunk}
				if n, err := first.derive(ctx); err != nil || n != chunk {
					t.Fatalf("the first chunk: %d rows, %v", n, err)
				}
				exec(t, jd, f.make)
				if f.make.sqlite != nil {
					if n, err := first.derive(ctx); err == nil {
						t.Fatalf("the second chunk derived %d rows through the fault", n)
					}
					exec(t, jd, f.undo)
				}

				again := jd
				if again.db, err = jd.reopen(); err != nil {
					t.Fatal(err)
				}
				defer again.db.Close()
				if err := (&journalDeriver{jd: again, chunk: chunk}).drain(ctx); err != nil {
					t.Fatal(err)
				}
				want := start
				want.journal += rows
				want.keys, want.transfers, want.postings, want.events = want.keys+rows, want.transfers+rows, want.postings+rows, want.events+3*rows
				if got := countJournal(t, jd); got != want {
					t.Fatalf("after %d journal rows derived the tables hold %+v, want %+v", rows, got, want)
				}
				var once, mark, last int64
				if err := jd.db.QueryRow(jd.q(`SELECT (SELECT count(*) FROM %[1]s j WHERE (SELECT count(*) FROM %[2]s t WHERE t.id = j.transfer_id) = 1
					AND (SELECT count(*) FROM %[3]s e WHERE e.object_id = j.transfer_id) = 3),
					(SELECT seq FROM %[4]s), (SELECT max(seq) FROM %[1]s)`, "journal", "transfers", "events", "journal_derived")).Scan(&once, &mark, &last); err != nil {
					t.Fatal(err)
				}
				if once != int64(want.journal) || mark != last {
					t.Fatalf("%d of %d journal rows derived once with three events; the mark at %d, the last row %d", once, want.journal, mark, last)
				}
			})
		}
	})
}

// pgFault is a trigger function that fails the statement that fires it.
const pgFault = `CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'fault'; END $$`

// jobsOf is n transfers between the app and the users, each under a key of its own.
func jobsOf(w *rawWorld, n int) []*rawJob {
	jobs := make([]*rawJob, n)
	for i := range jobs {
		u := w.users[i%len(w.users)]
		jobs[i] = &rawJob{key: uuid.NewString(), move: rawMove{debit: w.app, credit: u.account, user: u.ref, amount: -1}}
	}
	return jobs
}
