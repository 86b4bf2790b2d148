package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/service"
)

// The raw transfer is the baseline the service's PostgreSQL rate is read against: a durable
// transfer written by hand as one statement, so one round trip and one commit per transfer, by
// the same number of clients, on the same cluster, in the same run. It stores what payoutd stores
// for a 1-cent balance transfer: the idempotency key claimed, the guarded debit and the credit of
// the two wallets, the transfer, its posting (one row names both sides) and its three events
// (transfer.created, .completed, .updated) with a body of the size payoutd writes. Its tables
// are copies of payoutd's (LIKE ... INCLUDING ALL: the same columns, checks and indexes) with
// payoutd's foreign keys, made beside them in the same database and dropped afterwards.

// rawTables are payoutd's tables a raw transfer writes, each copied as loadgen_raw_<name>.
var rawTables = []string{"ledger_accounts", "idempotency_keys", "transfers", "postings", "events"}

// rawForeignKeys are payoutd's foreign keys on those tables, the accounts' pointing at the copy.
var rawForeignKeys = []string{
	`ALTER TABLE loadgen_raw_ledger_accounts ADD FOREIGN KEY (app_id) REFERENCES apps (id)`,
	`ALTER TABLE loadgen_raw_transfers ADD FOREIGN KEY (app_id) REFERENCES apps (id)`,
	`ALTER TABLE loadgen_raw_postings ADD FOREIGN KEY (app_id) REFERENCES apps (id)`,
	`ALTER TABLE loadgen_raw_postings ADD FOREIGN KEY (debit_account) REFERENCES loadgen_raw_ledger_accounts (id)`,
	`ALTER TABLE loadgen_raw_postings ADD FOREIGN KEY (credit_account) REFERENCES loadgen_raw_ledger_accounts (id)`,
	`ALTER TABLE loadgen_raw_events ADD FOREIGN KEY (app_id) REFERENCES apps (id)`,
}

// rawTransfer is the whole transfer in one statement. The accounts are locked in id order (as
// payoutd's netted update does), so that transfers in opposite directions cannot deadlock; the
// debit is guarded in the UPDATE's WHERE, and a transfer whose key was taken or whose debit the
// guard refused divides by zero at the end, which undoes the statement: nothing of it stays.
const rawTransfer = `WITH claim AS (
	INSERT INTO loadgen_raw_idempotency_keys (app_id, key, operation, request_hash, resource_id, created)
	VALUES ($1, $2, 'transfer', $3, $4, $5) ON CONFLICT DO NOTHING RETURNING key
), locked AS (
	SELECT id FROM loadgen_raw_ledger_accounts WHERE id IN ($6, $7) AND EXISTS (SELECT FROM claim)
	ORDER BY id FOR NO KEY UPDATE
), moved AS (
	UPDATE loadgen_raw_ledger_accounts a SET
		debits_posted = a.debits_posted + CASE WHEN a.id = $6 THEN $8::bigint ELSE 0 END,
		credits_posted = a.credits_posted + CASE WHEN a.id = $7 THEN $8::bigint ELSE 0 END
	WHERE a.id IN (SELECT id FROM locked)
		AND (a.id <> $6 OR a.credits_posted - a.debits_posted - a.debits_pending >= $8::bigint)
	RETURNING a.id
), transfer AS (
	INSERT INTO loadgen_raw_transfers (id, app_id, user_id, status, type, amount, idempotency_key,
		tax_exempt, created, updated, first_status)
	SELECT $4, $1, $9, 'completed', 'balance', $10, $2, TRUE, $5, $5, 'completed'
	WHERE (SELECT count(*) FROM moved) = 2
	RETURNING id
), posting AS (
	INSERT INTO loadgen_raw_postings (app_id, transfer_id, debit_account, credit_account, amount, state,
		type, user_id, source_name, destination_name, created, posted)
	SELECT $1, id, $6, $7, $8, 'posted', 'balance', $9, $11, $12, $5, $5 FROM transfer
	RETURNING transfer_id
), event AS (
	INSERT INTO loadgen_raw_events (id, app_id, type, object_id, data, created)
	SELECT e.id, $1, e.type, p.transfer_id, $13, $5
	FROM posting p, unnest($14::text[], ARRAY['transfer.created', 'transfer.completed', 'transfer.updated']) AS e (id, type)
	RETURNING id
)
SELECT 1 / count(*) FROM event`

// rawWorld is the raw transfer's accounts: the app's wallet and one wallet per user.
type rawWorld struct {
	appID string
	app   int64
	users []rawUser
	// transferIDs makes the transfers' ids as payoutd does, so that their rows cost what
	// payoutd's cost.
	transferIDs service.TransferIDs
}

// rawUser is a user's wallet and the ref it is named by.
type rawUser struct {
	account int64
	ref     string
}

// isPostgres says whether a payoutd database is PostgreSQL's (a DSN) rather than a SQLite file.
func isPostgres(dsn string) bool { return strings.HasPrefix(dsn, "postgres") }

// rawRates is what the raw transfer committed per second in the two ways it is run.
type rawRates struct {
	// viaApp is loadgen's own traffic: every transfer between the app's wallet and a user's, so
	// every one locks the app's wallet from its update to its commit's flush.
	viaApp float64
	// betweenUsers is the same statement between two users' wallets, which share no row: what
	// the cluster commits of these rows when no lock orders the transfers.
	betweenUsers float64
	// viaAppWriterCPU is, on SQLite, the group-commit writer's CPU per transfer committing
	// between the app and users, in ms.
	viaAppWriterCPU float64
}

// rawTransferRates runs the raw transfer on the PostgreSQL database dsn of the app appID from
// clients connections at once, for d each way, on its own copies of payoutd's tables. Every
// transfer moves 1 cent, in either direction, as loadgen's transfers do.
func rawTransferRates(ctx context.Context, dsn, appID string, clients, users int, d time.Duration) (rawRates, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return rawRates{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(clients)
	db.SetMaxIdleConns(clients)
	w, err := makeRawTables(ctx, db, appID, users)
	defer dropRawTables(context.WithoutCancel(ctx), db)
	if err != nil {
		return rawRates{}, err
	}
	viaApp, err := rawLoad(ctx, db, w, clients, d, w.viaApp)
	if err != nil {
		return rawRates{}, err
	}
	betweenUsers, err := rawLoad(ctx, db, w, clients, d, w.betweenUsers)
	return rawRates{viaApp: float64(viaApp) / d.Seconds(), betweenUsers: float64(betweenUsers) / d.Seconds()}, err
}

// rawMove is one transfer's accounts: debit pays 1 cent to credit; user names the transfer's
// user and amount is its signed amount as the API shows it.
type rawMove struct {
	debit, credit int64
	user          string
	amount        int64
}

// viaApp is a transfer between the app and a random user, in a random direction.
func (w *rawWorld) viaApp(r *rand.Rand) rawMove {
	u := w.users[r.IntN(len(w.users))]
	if r.IntN(2) == 0 {
		return rawMove{debit: u.account, credit: w.app, user: u.ref, amount: 1}
	}
	return rawMove{debit: w.app, credit: u.account, user: u.ref, amount: -1}
}

// betweenUsers is a transfer from a random user to another.
func (w *rawWorld) betweenUsers(r *rand.Rand) rawMove {
	i := r.IntN(len(w.users))
	j := (i + 1 + r.IntN(len(w.users)-1)) % len(w.users)
	return rawMove{debit: w.users[i].account, credit: w.users[j].account, user: w.users[i].ref, amount: 1}
}

// makeRawTables copies payoutd's tables and funds the app's wallet and users wallets.
func makeRawTables(ctx context.Context, db *sql.DB, appID string, users int) (*rawWorld, error) {
	dropRawTables(ctx, db) // a run interrupted before it dropped them
	for _, t := range rawTables {
		if _, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE loadgen_raw_%s (LIKE %s INCLUDING ALL)`, t, t)); err != nil {
			return nil, err
		}
	}
	for _, fk := range rawForeignKeys {
		if _, err := db.ExecContext(ctx, fk); err != nil {
			return nil, err
		}
	}
	w := &rawWorld{appID: appID, users: make([]rawUser, 0, users)}
	if err := db.QueryRowContext(ctx, `INSERT INTO loadgen_raw_ledger_accounts (app_id, kind, ref, credits_posted)
		VALUES ($1, 'app_wallet', '', 1000000000000) RETURNING id`, appID).Scan(&w.app); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `INSERT INTO loadgen_raw_ledger_accounts (app_id, kind, ref, credits_posted)
		SELECT $1, 'user_wallet', 'user-' || n, 100000 FROM generate_series(1, $2::int) AS n RETURNING id, ref`, appID, users)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var u rawUser
		if err := rows.Scan(&u.account, &u.ref); err != nil {
			return nil, err
		}
		w.users = append(w.users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The service's tables are analyzed by the time a run is long; these are from the start.
	_, err = db.ExecContext(ctx, `ANALYZE loadgen_raw_ledger_accounts`)
	return w, err
}

func dropRawTables(ctx context.Context, db *sql.DB) {
	for i := len(rawTables) - 1; i >= 0; i-- {
		db.ExecContext(ctx, `DROP TABLE IF EXISTS loadgen_raw_`+rawTables[i])
	}
}

// rawEventData is an event body of the size payoutd writes for a transfer (about 580 bytes).
var rawEventData = `{"object":"transfer","data":` + `"` + strings.Repeat("x", 540) + `"}`

// rawLoad sends raw transfers from clients connections in a closed loop for d and returns how
// many committed. Any failure ends the run: none is expected (every wallet has money enough).
func rawLoad(ctx context.Context, db *sql.DB, w *rawWorld, clients int, d time.Duration, pick func(*rand.Rand) rawMove) (int, error) {
	return rawClosedLoop(ctx, clients, d, pick, func(key string, m rawMove) error {
		return rawTransferOnce(ctx, db, w, key, m)
	})
}

// rawClosedLoop runs clients for d, each sending one transfer picked with its own random source
// through send and waiting for it before the next, and returns how many committed. A client stops
// at its first failure, which the run returns.
func rawClosedLoop(ctx context.Context, clients int, d time.Duration, pick func(*rand.Rand) rawMove, send func(key string, m rawMove) error) (int, error) {
	var mu sync.Mutex
	var firstErr error
	committed := 0
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), uint64(time.Now().UnixNano())))
			n := 0
			var err error
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if err = send(uuid.NewString(), pick(r)); err != nil {
					break
				}
				n++
			}
			mu.Lock()
			defer mu.Unlock()
			committed += n
			firstErr = cmpErr(firstErr, err)
		})
	}
	wg.Wait()
	return committed, errors.Join(firstErr, ctx.Err())
}

// rawTransferOnce makes the transfer m under the idempotency key, with fresh ids, in one
// statement.
func rawTransferOnce(ctx context.Context, db *sql.DB, w *rawWorld, key string, m rawMove) error {
	appID, id := w.appID, w.transferIDs.New(w.appID)
	hash := sha256.Sum256([]byte(key))
	events := []string{uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()}
	now := time.Now().UnixMicro()
	var one int
	return db.QueryRowContext(ctx, rawTransfer, appID, key, hex.EncodeToString(hash[:]), id, now,
		m.debit, m.credit, int64(1), m.user, m.amount, "Source", "Destination", rawEventData, events).Scan(&one)
}
