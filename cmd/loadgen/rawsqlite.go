package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/store"
)

// On SQLite the baseline is a hand-written durable group commit: the clients hand their
// transfers to one writer goroutine, which takes every one waiting (up to 128), runs them one
// after another in one transaction, without a savepoint each, as payoutd does (the same rows and
// guard as the PostgreSQL statement: the key claimed, the debit guarded, the credit, the
// transfer, its posting and its three events) and commits them with one flush
// (synchronous=FULL, WAL). It writes a scratch database beside the service's, with payoutd's
// schema (its migrations), removed afterwards.

// rawJob is a transfer waiting for a group-commit writer, answered on done.
type rawJob struct {
	key  string
	move rawMove
	done chan error
}

// rawSQLiteRates runs the raw group commit on a scratch database beside the SQLite file dsn
// from clients goroutines at once, for d each way.
func rawSQLiteRates(ctx context.Context, dsn string, clients, users int, d time.Duration) (rawRates, error) {
	scratch := fmt.Sprintf("%s.raw-%d", dsn, time.Now().UnixNano())
	for _, suffix := range []string{"", "-wal", "-shm"} {
		defer os.Remove(scratch + suffix)
	}
	st, err := store.Open(ctx, scratch) // payoutd's tables, indexes and triggers
	if err != nil {
		return rawRates{}, err
	}
	st.Close()
	db, err := openRawSQLite(scratch)
	if err != nil {
		return rawRates{}, err
	}
	defer db.Close()
	w, err := makeRawSQLiteWorld(ctx, db, users)
	if err != nil {
		return rawRates{}, err
	}
	viaApp, cpu, err := rawSQLiteLoad(ctx, db, w, clients, d, w.viaApp)
	if err != nil {
		return rawRates{}, err
	}
	betweenUsers, _, err := rawSQLiteLoad(ctx, db, w, clients, d, w.betweenUsers)
	return rawRates{viaApp: float64(viaApp) / d.Seconds(), betweenUsers: float64(betweenUsers) / d.Seconds(),
		viaAppWriterCPU: perRow(cpu, int64(viaApp))}, err
}

// openRawSQLite opens the scratch database as payoutd opens its own: WAL, synchronous=FULL,
// write transactions begun IMMEDIATE, one connection.
func openRawSQLite(path string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)", "temp_store(MEMORY)", "busy_timeout(5000)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// makeRawSQLiteWorld makes an app and funds its wallet and users' wallets.
func makeRawSQLiteWorld(ctx context.Context, db *sql.DB, users int) (*rawWorld, error) {
	w := &rawWorld{appID: uuid.NewString()}
	if _, err := db.ExecContext(ctx, `INSERT INTO apps (id, name, client_id, created) VALUES (?, 'raw', ?, 0)`,
		w.appID, "ck_raw_"+w.appID); err != nil {
		return nil, err
	}
	if err := db.QueryRowContext(ctx, `INSERT INTO ledger_accounts (app_id, kind, ref, credits_posted)
		VALUES (?, 'app_wallet', '', 1000000000000) RETURNING id`, w.appID).Scan(&w.app); err != nil {
		return nil, err
	}
	for n := range users {
		u := rawUser{ref: fmt.Sprintf("user-%d", n+1)}
		if err := db.QueryRowContext(ctx, `INSERT INTO ledger_accounts (app_id, kind, ref, credits_posted)
			VALUES (?, 'user_wallet', ?, 100000) RETURNING id`, w.appID, u.ref).Scan(&u.account); err != nil {
			return nil, err
		}
		w.users = append(w.users, u)
	}
	return w, nil
}

// rawSQLiteLoad runs clients in a closed loop for d, each handing transfers to one writer, and
// returns how many committed and the writer's CPU time committing them. Any failure ends the
// run: none is expected.
func rawSQLiteLoad(ctx context.Context, db *sql.DB, w *rawWorld, clients int, d time.Duration, pick func(*rand.Rand) rawMove) (int, time.Duration, error) {
	var cpu time.Duration
	n, err := rawGroupCommitLoad(ctx, clients, d, pick, func(batch []*rawJob) ([]error, error) {
		start := threadCPU()
		defer func() { cpu += threadCPU() - start }()
		return rawSQLiteBatch(ctx, db, w, batch)
	}, nil)
	return n, cpu, err
}

// rawGroupCommitLoad runs clients in a closed loop for d, each handing its transfers to one
// writer goroutine, and returns how many committed. The writer takes every transfer waiting (up
// to 128), commits them through commit, which returns each one's own error and the batch's,
// answers them, and then calls between (if not nil) before it takes the next batch. The writer
// keeps to one OS thread, so that commit and between can read its CPU time (threadCPU).
func rawGroupCommitLoad(ctx context.Context, clients int, d time.Duration, pick func(*rand.Rand) rawMove,
	commit func([]*rawJob) ([]error, error), between func() error) (int, error) {
	jobs := make(chan *rawJob)
	writerDone := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		writerDone <- rawGroupCommitWriter(jobs, commit, between)
	}()
	committed, err := rawClosedLoop(ctx, clients, d, pick, func(key string, m rawMove) error {
		j := &rawJob{key: key, move: m, done: make(chan error, 1)}
		jobs <- j
		return <-j.done
	})
	close(jobs)
	return committed, errors.Join(err, <-writerDone)
}

// rawGroupCommitWriter commits the jobs it is handed, every one waiting at once, until jobs is
// closed or a batch fails.
func rawGroupCommitWriter(jobs <-chan *rawJob, commit func([]*rawJob) ([]error, error), between func() error) error {
	batch := make([]*rawJob, 0, 128)
	for j := range jobs {
		batch = append(batch[:0], j)
	take:
		for len(batch) < cap(batch) {
			select {
			case j, ok := <-jobs:
				if !ok {
					break take
				}
				batch = append(batch, j)
			default:
				break take
			}
		}
		errs, err := commit(batch)
		for i, j := range batch {
			j.done <- errors.Join(err, errs[i])
		}
		if err == nil && between != nil {
			err = between()
		}
		if err != nil {
			for j := range jobs { // the clients' next transfers fail, so that they stop
				j.done <- err
			}
			return err
		}
	}
	return nil
}

// rawSQLiteStatements are a transfer's statements, in the order they run, and the one that gives
// back its key when its debit is refused, prepared once per batch.
var rawSQLiteStatements = []string{
	`INSERT INTO idempotency_keys (app_id, key, operation, request_hash, resource_id, created)
		VALUES (?, ?, 'transfer', ?, ?, ?) ON CONFLICT DO NOTHING`,
	`UPDATE ledger_accounts SET debits_posted = debits_posted + 1
		WHERE id = ? AND credits_posted - debits_posted - debits_pending >= 1`,
	`UPDATE ledger_accounts SET credits_posted = credits_posted + 1 WHERE id = ?`,
	`INSERT INTO transfers (id, app_id, user_id, status, type, amount, idempotency_key, tax_exempt, created, updated,
		first_status) VALUES (?, ?, ?, 'completed', 'balance', ?, ?, 1, ?, ?, 'completed')`,
	`INSERT INTO postings (app_id, transfer_id, debit_account, credit_account, amount, state, type, user_id,
		source_name, destination_name, created, posted) VALUES (?, ?, ?, ?, 1, 'posted', 'balance', ?, 'Source', 'Destination', ?, ?)`,
	`INSERT INTO events (id, app_id, type, object_id, data, created) VALUES
		(?, ?, 'transfer.created', ?, ?, ?), (?, ?, 'transfer.completed', ?, ?, ?), (?, ?, 'transfer.updated', ?, ?, ?)`,
	`DELETE FROM idempotency_keys WHERE app_id = ? AND key = ?`,
}

const (
	rawClaim = iota
	rawDebit
	rawCredit
	rawInsertTransfer
	rawInsertPosting
	rawInsertEvents
	rawUnclaim
)

// rawSQLiteBatch runs the batch's transfers one after another in one transaction, without a
// savepoint each, as payoutd runs a batch's jobs: a transfer whose key was taken or whose debit
// the guard refused leaves nothing behind (rawSQLiteTransfer), and any other failure fails the
// batch. It commits.
func rawSQLiteBatch(ctx context.Context, db *sql.DB, w *rawWorld, batch []*rawJob) ([]error, error) {
	errs := make([]error, len(batch))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return errs, err
	}
	defer tx.Rollback()
	stmts := make([]*sql.Stmt, len(rawSQLiteStatements))
	for i, text := range rawSQLiteStatements {
		if stmts[i], err = tx.PrepareContext(ctx, text); err != nil {
			return errs, err
		}
		defer stmts[i].Close()
	}
	for i, j := range batch {
		errs[i] = rawSQLiteTransfer(ctx, stmts, w.appID, w.transferIDs.New(w.appID), j.key, j.move)
		if errs[i] != nil && !errors.Is(errs[i], errRawRefused) {
			return errs, errs[i]
		}
	}
	return errs, tx.Commit()
}

var errRawRefused = errors.New("raw transfer refused: key taken or funds short")

// rawSQLiteTransfer writes the rows of one transfer, id, in the open transaction, through its
// prepared statements. It decides before it writes anything else: a key already taken claims
// nothing, and a debit the guard refuses gives its claim back; either is errRawRefused, having
// left nothing behind.
func rawSQLiteTransfer(ctx context.Context, stmts []*sql.Stmt, appID, id, key string, m rawMove) error {
	hash := sha256.Sum256([]byte(key))
	now := time.Now().UnixMicro()
	if err := rawExecOne(ctx, stmts[rawClaim], appID, key, hex.EncodeToString(hash[:]), id, now); err != nil {
		return err
	}
	if err := rawExecOne(ctx, stmts[rawDebit], m.debit); err != nil {
		if !errors.Is(err, errRawRefused) {
			return err
		}
		if _, err := stmts[rawUnclaim].ExecContext(ctx, appID, key); err != nil {
			return err
		}
		return errRawRefused
	}
	for _, s := range []struct {
		stmt int
		args []any
	}{
		{rawCredit, []any{m.credit}},
		{rawInsertTransfer, []any{id, appID, m.user, m.amount, key, now, now}},
		{rawInsertPosting, []any{appID, id, m.debit, m.credit, m.user, now, now}},
		{rawInsertEvents, []any{uuid.Must(uuid.NewV7()).String(), appID, id, rawEventData, now,
			uuid.Must(uuid.NewV7()).String(), appID, id, rawEventData, now,
			uuid.Must(uuid.NewV7()).String(), appID, id, rawEventData, now}},
	} {
		err := rawExecOne(ctx, stmts[s.stmt], s.args...)
		if errors.Is(err, errRawRefused) {
			// Past the debit a statement that changes nothing is no refusal: what the transfer
			// wrote cannot be taken back alone, so its batch fails.
			return fmt.Errorf("raw transfer %s: a statement after its debit changed no row", id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rawExecOne runs stmt, which must change a row: one that changes none is errRawRefused.
func rawExecOne(ctx context.Context, stmt *sql.Stmt, args ...any) error {
	res, err := stmt.ExecContext(ctx, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, errRawRefused)
	}
	return nil
}

// perRow is a duration per row, in milliseconds; 0 for no rows.
func perRow(t time.Duration, rows int64) float64 {
	if rows == 0 {
		return 0
	}
	return float64(t.Microseconds()) / 1000 / float64(rows)
}

// threadCPU is the user and system CPU time of the calling OS thread (getrusage
// RUSAGE_THREAD, Linux; 0 elsewhere).
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
