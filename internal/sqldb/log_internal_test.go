package sqldb

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLogRestartsUnderSteadyLoad writes without a pause while readers keep reading, the load
// under which SQLite never restarts its write-ahead log by itself, and checks that the log file
// stays near the size at which the writer is asked to restart it: 1.5 to 2.3 MiB here. Without
// restartLog it ends at 9 to 18 MiB of the 48 this test writes (SQLite restarts it only in the
// rare moments the writer finds it fully copied and no reader in it).
func TestLogRestartsUnderSteadyLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a steady load of several seconds does not run under -short")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "log.db")
	const restartFrames = 256 // 1 MiB
	db, err := open(ctx, path, tuning{checkpointEvery: 5 * time.Millisecond, logRestartFrames: restartFrames}, Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE rows (k INTEGER PRIMARY KEY, r INTEGER NOT NULL, v BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE INDEX rows_r ON rows (r)`); err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for !stop.Load() {
				var n int
				if err := db.QueryRowContext(ctx, `SELECT count(*) FROM rows WHERE r < 1000`).Scan(&n); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// About 12,000 pages in all: three per row (the row's two overflow pages and its index entry).
	var writers sync.WaitGroup
	for range 32 {
		writers.Go(func() {
			blob := make([]byte, 8000)
			for range 125 {
				err := db.InTx(ctx, func(tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `INSERT INTO rows (r, v) VALUES (?, ?)`, rand.Int64(), blob)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writers.Wait()
	stop.Store(true)
	readers.Wait()

	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	const limit = 6 << 20
	if info.Size() > limit {
		t.Errorf("write-ahead log is %d MiB after the load, want at most %d MiB", info.Size()>>20, limit>>20)
	}
}

// TestLogRestartWaitsOutALongReader holds a read open, as a backup does, while writes go on.
// No restart can succeed meanwhile, and every attempt holds up the writes for its busy
// timeout, so the checkpointer must ask less and less often: without the doubling wait the
// writer tried about once per 25 ms here (a 5 ms checkpoint interval plus the 20 ms attempt).
// Once the reader is done the log restarts again.
func TestLogRestartWaitsOutALongReader(t *testing.T) {
	ctx := context.Background()
	db, err := open(ctx, filepath.Join(t.TempDir(), "log.db"), tuning{checkpointEvery: 5 * time.Millisecond, logRestartFrames: 16}, Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE rows (k INTEGER PRIMARY KEY, v BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	insert := func(t *testing.T) {
		t.Helper()
		err := db.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO rows (v) VALUES (?)`, make([]byte, 8000))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	insert(t)
	// An unfinished query keeps its read transaction, and its snapshot of the log, open.
	reader, err := db.QueryContext(ctx, `SELECT k FROM rows`)
	if err != nil {
		t.Fatal(err)
	}
	if !reader.Next() {
		t.Fatal("the reader found no row")
	}
	const hold = 800 * time.Millisecond
	for start := time.Now(); time.Since(start) < hold; {
		insert(t)
	}
	tried := db.restartsTried.Load()
	t.Logf("%d restarts tried while the reader held the log", tried)
	reader.Close()
	// Doubling from 5 ms, the waits add up to 800 ms after 8 refusals.
	if tried > 12 {
		t.Errorf("the writer tried %d restarts in %v while a reader held the log, want at most 12", tried, hold)
	}

	deadline := time.Now().Add(10 * time.Second)
	for {
		insert(t)
		var busy, logFrames, copied int
		if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied); err != nil {
			t.Fatal(err)
		}
		if logFrames < 16 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log still holds %d pages 10 s after the reader was done", logFrames)
		}
		time.Sleep(time.Millisecond)
	}
}
