package store

import (
	"time"

	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const accountColumns = `id, app_id, kind, ref, debits_posted, credits_posted, debits_pending, credits_pending`

func scanAccount(row interface{ Scan(...any) error }) (*ledger.Account, error) {
	var a ledger.Account
	err := row.Scan(&a.ID, &a.AppID, &a.Kind, &a.Ref, &a.DebitsPosted, &a.CreditsPosted, &a.DebitsPending, &a.CreditsPending)
	if err != nil {
		return nil, noRecord(err)
	}
	return &a, nil
}

// EnsureAccount returns the app's account of this kind and ref, creating it on first use.
func (q *Queries) EnsureAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (_ *ledger.Account, err error) {
	defer wrap(&err, "ensure %s account %q", kind, ref)
	a, err := q.FindAccount(ctx, appID, kind, ref)
	if !errors.Is(err, service.ErrNoRecord) {
		return a, err
	}
	_, err = q.execTouching(ctx, writing(accountsTable), `INSERT INTO ledger_accounts (app_id, kind, ref) VALUES (?, ?, ?)
		ON CONFLICT (app_id, kind, ref) DO NOTHING`, appID, kind, ref)
	if err != nil {
		return nil, err
	}
	return q.FindAccount(ctx, appID, kind, ref)
}

// FindAccount reads the app's account of this kind and ref; in a batch, with the batch's deltas
// so far, and an account of the app itself with all the others (readAppAccounts).
func (q *Queries) FindAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (_ *ledger.Account, err error) {
	defer wrap(&err, "find %s account %q", kind, ref)
	if a, ok := q.job.known(appID, kind, ref); ok {
		return a, nil
	}
	if q.job != nil && kind != ledger.UserWallet {
		if err := q.readAppAccounts(ctx, appID); err != nil {
			return nil, err
		}
		if a, ok := q.job.known(appID, kind, ref); ok {
			return a, nil
		}
		return nil, service.ErrNoRecord
	}
	a, err := scanAccount(q.queryRowTouching(ctx, reading(accountsTable), `SELECT `+accountColumns+` FROM ledger_accounts
		WHERE app_id = ? AND kind = ? AND ref = ?`, appID, kind, ref))
	if q.job != nil && err == nil {
		return q.job.seen(a), nil
	}
	return a, err
}

// appAccounts are the accounts of an app itself, every kind but its users' wallets: a few (its
// wallet, fees, escrow, a clearing account per rail and an external one per source of money).
const appAccounts = `SELECT ` + accountColumns + ` FROM ledger_accounts
	WHERE app_id = ? AND kind IN ('app_wallet', 'clearing', 'escrow', 'external', 'fees')`

// readAppAccounts reads every account of the app itself into the batch, in one statement: a
// movement posts to several of them (a payout to the app's wallet, the rail's clearing account
// and fees), and on PostgreSQL each read alone is a round trip.
func (q *Queries) readAppAccounts(ctx context.Context, appID string) error {
	return q.runStmt(ctx, reading(accountsTable), q.job.st.accountsStmt(appAccounts, appID))
}

// accountsStmt reads the accounts query selects into the batch (jobState.seen).
func (st *batchState) accountsStmt(query string, args ...any) sqldb.Stmt {
	return sqldb.Stmt{Query: query, Args: args, Row: func(scan func(...any) error) error {
		a, err := scanAccount(scanFunc(scan))
		if err == nil {
			st.job.seen(a)
		}
		return err
	}}
}

// The guard and the write are one statement: the row is locked while its balance is checked,
// so no two writers can both spend the same money.
const (
	applyDelta = `UPDATE ledger_accounts SET debits_posted = debits_posted + ?, credits_posted = credits_posted + ?,
		debits_pending = debits_pending + ?, credits_pending = credits_pending + ? WHERE id = ?`
	applyGuardedDelta = applyDelta + ` AND credits_posted + ? - debits_posted - ? - debits_pending - ? >= 0`
)

// post writes a plan's movement (Apply): every guarded delta is first checked against the
// batch's running balance of its account (netting), and one that would overdraw refuses the
// whole movement with service.ErrOverdraft, nothing of it written or kept; then the pending
// postings it settles change state, its deltas are netted with the batch's, and its new postings
// are numbered and held, written before the commit (held). A failure past the checks (a settled
// posting no longer pending, a failed statement) fails the job, whose undo takes back what the
// movement left.
func (q *Queries) post(ctx context.Context, m ledger.Movement) error {
	if err := q.job.check(ctx, q, m.Deltas()); err != nil {
		return err
	}
	if err := q.settle(ctx, m.Settled()); err != nil {
		return err
	}
	for _, p := range m.Settled() {
		q.job.st.held.chain.hold(chainItem{posting: *p, settles: true})
	}
	q.job.add(m.Deltas())
	q.wrote(applyDelta)
	q.wrote(postingWriter.insert)
	q.wrote(chainEntryWriter.insert)
	// The transaction numbers its postings itself and holds them with its other rows: no job
	// sends a statement for its postings, and its answer still carries their ids.
	if err := q.NumberPostings(ctx, m.Made()); err != nil {
		return err
	}
	for _, p := range m.Made() {
		q.job.st.held.postings.hold(*p)
		q.job.st.held.chain.hold(chainItem{posting: *p})
	}
	return nil
}

// NumberPostings gives the new postings of a plan not numbered yet their ids, as the
// transaction numbers them (postingIDs).
func (q *Queries) NumberPostings(ctx context.Context, postings []*ledger.Posting) (err error) {
	defer wrap(&err, "number %d postings", len(postings))
	if q.job == nil {
		return errors.New("store: postings are numbered in a write transaction only")
	}
	var unnumbered []*ledger.Posting
	for _, p := range postings {
		if p.ID == 0 {
			unnumbered = append(unnumbered, p)
		}
	}
	ids, err := q.postingIDs(ctx, len(unnumbered))
	if err != nil {
		return err
	}
	for i, p := range unnumbered {
		p.ID = ids[i]
	}
	return nil
}

// deltaStmts are the statements that write a batch's net deltas: one per account, or on
// PostgreSQL one for all (applyDeltasAtOnce).
func deltaStmts(d sqldb.Dialect, deltas []ledger.Delta) []sqldb.Stmt {
	if d == sqldb.Postgres && len(deltas) > 1 && distinctAccounts(deltas) {
		return []sqldb.Stmt{applyDeltasAtOnce(deltas)}
	}
	stmts := make([]sqldb.Stmt, len(deltas))
	for i, d := range deltas {
		args := []any{d.DebitsPosted, d.CreditsPosted, d.DebitsPending, d.CreditsPending, d.Account}
		query := applyDelta
		if d.Guard {
			query = applyGuardedDelta
			args = append(args, d.CreditsPosted, d.DebitsPosted, d.DebitsPending)
		}
		stmts[i] = sqldb.Stmt{Query: query, Args: args, Done: func(changed int64) error {
			switch {
			case changed > 0:
				return nil
			case d.Guard:
				return service.ErrOverdraft
			}
			return fmt.Errorf("account %d: %w", d.Account, service.ErrNoRecord)
		}}
	}
	return stmts
}

// applyDeltasAtOnce is deltaStmts in one PostgreSQL statement: a batch's flush is one round
// trip instead of one per account, so the app wallet, which every batch writes, stays locked
// for that statement and the commit only. The rows are locked in account order first (the
// locked CTE, which the update reads before it changes a row), so that writers cannot deadlock.
func applyDeltasAtOnce(deltas []ledger.Delta) sqldb.Stmt {
	n := len(deltas)
	ids, dp, cp, dpe, cpe := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	guard := make([]bool, n)
	for i, d := range deltas {
		ids[i], dp[i], cp[i], dpe[i], cpe[i], guard[i] = d.Account, d.DebitsPosted, d.CreditsPosted, d.DebitsPending, d.CreditsPending, d.Guard
	}
	written := make(map[int64]bool, n)
	return sqldb.Stmt{Query: `WITH d AS (SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::boolean[])
			AS d (id, dp, cp, dpe, cpe, guard)),
		locked AS (SELECT id FROM ledger_accounts WHERE id IN (SELECT id FROM d) ORDER BY id FOR NO KEY UPDATE)
		UPDATE ledger_accounts a SET debits_posted = a.debits_posted + d.dp, credits_posted = a.credits_posted + d.cp,
			debits_pending = a.debits_pending + d.dpe, credits_pending = a.credits_pending + d.cpe
		FROM d WHERE a.id = d.id AND a.id IN (SELECT id FROM locked)
			AND (NOT d.guard OR a.credits_posted + d.cp - a.debits_posted - d.dp - a.debits_pending - d.dpe >= 0)
		RETURNING a.id`, Args: []any{ids, dp, cp, dpe, cpe, guard}, Row: func(scan func(...any) error) error {
		var id int64
		err := scan(&id)
		written[id] = true
		return err
	}, Done: func(int64) error {
		for _, d := range deltas {
			switch {
			case written[d.Account]:
			case d.Guard:
				return service.ErrOverdraft
			default:
				return fmt.Errorf("account %d: %w", d.Account, service.ErrNoRecord)
			}
		}
		return nil
	}}
}

// distinctAccounts reports whether no two deltas name one account: one UPDATE changes a row
// once, whatever number of deltas name it.
func distinctAccounts(deltas []ledger.Delta) bool {
	seen := make(map[int64]bool, len(deltas))
	for _, d := range deltas {
		if seen[d.Account] {
			return false
		}
		seen[d.Account] = true
	}
	return true
}

const postingColumns = `id, app_id, transfer_id, debit_account, credit_account, amount, state, type, user_id,
	source_name, destination_name, metadata, created, posted`

func scanPosting(row interface{ Scan(...any) error }) (ledger.Posting, error) {
	var p ledger.Posting
	var userID, md sql.NullString
	var created int64
	var posted sql.NullInt64
	err := row.Scan(&p.ID, &p.AppID, &p.TransferID, &p.Debit, &p.Credit, &p.Amount, &p.State, &p.Type, &userID,
		&p.SourceName, &p.DestinationName, &md, &created, &posted)
	if err != nil {
		return p, noRecord(err)
	}
	p.UserID, p.Metadata, p.Created = userID.String, metadataOf(md), sqldb.FromMicros(created)
	if posted.Valid {
		p.Posted = sqldb.FromMicros(posted.Int64)
	}
	return p, nil
}

func scanPostings(rows *sql.Rows, err error) ([]ledger.Posting, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ledger.Posting
	for rows.Next() {
		p, err := scanPosting(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

const (
	postingInsertColumns = `app_id, transfer_id, debit_account, credit_account, amount, state, type, user_id,
	source_name, destination_name, metadata, created, posted`
)

// postingWriter writes postings numbered already (postingIDs).
var postingWriter = writer[ledger.Posting]{
	insert: `INSERT INTO postings (id, ` + postingInsertColumns + `)`,
	values: func(p *ledger.Posting) []any { return append([]any{p.ID}, postingValues(p)...) },
}

// postingIDs numbers the n new postings of a movement in a write transaction.
//
// SQLite: from one past the highest id the table ever gave (AUTOINCREMENT keeps it in
// sqlite_sequence), read once per transaction. Every posting the transaction makes is numbered
// here, and no other writer can insert while it holds the write lock.
//
// PostgreSQL, where other transactions take ids meanwhile: ids the transaction reserved from
// the table's sequence. When it has fewer than n left it reserves, in one statement, n for each
// job the batch has left (a payout's two postings cost one statement, not two), and twice as
// many as the last time when it runs out again (a transfer batch's one job makes thousands).
//
// A posting of a job that failed leaves a gap, as a rolled-back AUTOINCREMENT or sequence does;
// so do ids reserved and not given.
func (q *Queries) postingIDs(ctx context.Context, n int) ([]int64, error) {
	st := q.job.st
	if n == 0 { // a movement that only settles
		return nil, nil
	}
	if q.dialect == sqldb.SQLite {
		if st.lastPostingID == 0 {
			// sqlite_sequence is no held table: the held postings were numbered here, not by it.
			err := q.queryRowTouching(ctx, readingOthers, `SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = ?`, "postings").
				Scan(&st.lastPostingID)
			if err != nil {
				return nil, err
			}
		}
		ids := make([]int64, n)
		for i := range ids {
			st.lastPostingID++
			ids[i] = st.lastPostingID
		}
		return ids, nil
	}
	if short := n - len(st.postingIDs); short > 0 {
		k := max(short, min(max(n*q.batch.Left(), 2*st.reserved), maxPostingIDsReserved))
		var reserved []int64
		if err := q.runStmt(ctx, readingOthers, reservePostingIDsStmt(k, &reserved)); err != nil {
			return nil, err
		}
		slices.Sort(reserved) // after the ids left: the sequence only grows
		st.postingIDs = append(st.postingIDs, reserved...)
		st.reserved = k
	}
	ids := st.postingIDs[:n:n]
	st.postingIDs = st.postingIDs[n:]
	return ids, nil
}

// reservePostingIDsStmt reserves n ids from the postings' sequence into ids (PostgreSQL).
func reservePostingIDsStmt(n int, ids *[]int64) sqldb.Stmt {
	return sqldb.Stmt{Query: `SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)`,
		Args: []any{"postings", n}, Row: func(scan func(...any) error) error {
			var id int64
			err := scan(&id)
			*ids = append(*ids, id)
			return err
		}}
}

// maxPostingIDsReserved bounds the ids a transaction reserves from the postings' sequence at once.
const maxPostingIDsReserved = 1024

func postingValues(p *ledger.Posting) []any {
	return []any{p.AppID, p.TransferID, p.Debit, p.Credit, p.Amount, p.State, p.Type, nullString(p.UserID),
		p.SourceName, p.DestinationName, metadataValue(p.Metadata), sqldb.Micros(p.Created), postedValue(p.Posted)}
}

// postedValue is a posting's posted time as stored: NULL while it is not posted.
func postedValue(at time.Time) any {
	if at.IsZero() {
		return nil
	}
	return sqldb.Micros(at)
}

// settle writes the new states of pending postings and their posted times (none for a voided
// one), one statement for the postings of one state and time, which a settlement's all are (on
// PostgreSQL each statement is a round trip). A posting no longer pending is service.ErrNoRecord,
// so a reservation is settled once only.
func (q *Queries) settle(ctx context.Context, postings []*ledger.Posting) (err error) {
	defer wrap(&err, "settle %d postings", len(postings))
	type outcome struct {
		state  ledger.State
		posted time.Time
	}
	var outcomes []outcome
	ids := map[outcome][]int64{}
	for _, p := range postings {
		o := outcome{p.State, p.Posted}
		if _, ok := ids[o]; !ok {
			outcomes = append(outcomes, o)
		}
		ids[o] = append(ids[o], p.ID)
	}
	for _, o := range outcomes {
		marks, args := idList(ids[o])
		res, err := q.execTouching(ctx, writing(postingsTable), `UPDATE postings SET state = ?, posted = ? WHERE state = ? AND id IN (`+marks+`)`,
			append([]any{o.state, postedValue(o.posted), ledger.Pending}, args...)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != int64(len(ids[o])) {
			return service.ErrNoRecord
		}
	}
	return nil
}

// PostingsOfTransfers reads the postings of the given transfers, oldest first. They are looked up
// in the (app_id, transfer_id, id) index and sorted here: with an ORDER BY id, SQLite would walk
// the app's whole (app_id, id) index instead, and a page would cost what the ledger weighs.
func (q *Queries) PostingsOfTransfers(ctx context.Context, appID string, transferIDs []string) (_ []ledger.Posting, err error) {
	defer wrap(&err, "postings of %d transfers", len(transferIDs))
	if len(transferIDs) == 0 {
		return nil, nil
	}
	marks, args := appAndIDs(appID, transferIDs)
	postings, err := scanPostings(q.queryTouching(ctx, reading(postingsTable), `SELECT `+postingColumns+` FROM postings
		WHERE app_id = ? AND transfer_id IN (`+marks+`)`, args...))
	slices.SortFunc(postings, func(a, b ledger.Posting) int { return cmp.Compare(a.ID, b.ID) })
	return postings, err
}

// appAndIDs are the placeholders of ids, for an IN list, and the arguments appID and ids, the
// list padded to a power of two (sqldb.PadIDs) so that the query keeps a few texts.
func appAndIDs(appID string, ids []string) (string, []any) {
	marks, args := idList(ids)
	return marks, append([]any{appID}, args...)
}

// idList is appAndIDs without the app.
func idList[ID any](ids []ID) (string, []any) {
	ids = sqldb.PadIDs(ids)
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", "), args
}

// LedgerSnapshot reads all accounts and postings of an app, for the invariant checker.
func (q *Queries) LedgerSnapshot(ctx context.Context, appID string) ([]ledger.Account, []ledger.Posting, error) {
	a, err := q.LedgerAudit(ctx, appID)
	return a.Accounts, a.Postings, err
}

// LedgerAudit reads an app's accounts, postings, transfers and chain in one read-only
// transaction, a moment of the database no write is half done in (on PostgreSQL a repeatable
// read), and checks the chain under the store's key: what CheckLedger verifies.
func (q *Queries) LedgerAudit(ctx context.Context, appID string) (a service.LedgerAudit, err error) {
	defer wrap(&err, "audit the ledger of app %s", appID)
	opts := &sql.TxOptions{ReadOnly: true}
	if q.dialect == sqldb.Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := q.db.DB.BeginTx(ctx, opts)
	if err != nil {
		return a, err
	}
	defer tx.Rollback()
	read := func(query string, scan func(*sql.Rows) error) error {
		return eachRow(tx.QueryContext(ctx, sqldb.Rebind(q.dialect, query), appID))(scan)
	}
	var head ledger.ChainHead
	var entries []ledger.ChainEntry
	err = errors.Join(
		read(`SELECT `+accountColumns+` FROM ledger_accounts WHERE app_id = ? ORDER BY id`, func(r *sql.Rows) error {
			acc, err := scanAccount(r)
			if err == nil {
				a.Accounts = append(a.Accounts, *acc)
			}
			return err
		}),
		read(`SELECT `+postingColumns+` FROM postings WHERE app_id = ? ORDER BY id`, func(r *sql.Rows) error {
			p, err := scanPosting(r)
			a.Postings = append(a.Postings, p)
			return err
		}),
		read(`SELECT `+transferColumns+` FROM transfers WHERE app_id = ? ORDER BY seq`, func(r *sql.Rows) error {
			t, err := scanTransfer(r)
			a.Transfers = append(a.Transfers, t)
			return err
		}),
		read(`SELECT seq, posting_id, settles, hash FROM ledger_chain WHERE app_id = ? ORDER BY seq`, func(r *sql.Rows) error {
			var e ledger.ChainEntry
			err := r.Scan(&e.Seq, &e.PostingID, &e.Settles, &e.Hash)
			entries = append(entries, e)
			return err
		}),
		read(`SELECT seq, hash FROM ledger_chain_heads WHERE app_id = ?`, func(r *sql.Rows) error {
			return r.Scan(&head.Seq, &head.Hash)
		}),
	)
	if err != nil {
		return service.LedgerAudit{}, err
	}
	a.Chain = ledger.CheckChain(q.chainKey, head, entries, a.Postings)
	return a, nil
}

// GetTransaction reads one posting of the app.
func (q *Queries) GetTransaction(ctx context.Context, appID string, id int64) (_ *ledger.Posting, err error) {
	defer wrap(&err, "get transaction %d", id)
	p, err := scanPosting(q.queryRowTouching(ctx, reading(postingsTable), `SELECT `+postingColumns+` FROM postings WHERE app_id = ? AND id = ?`, appID, id))
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// ListTransactions reads a page of the app's postings, newest first.
func (q *Queries) ListTransactions(ctx context.Context, appID string, page payouts.Page, f payouts.TransactionFilter) (_ []ledger.Posting, _ bool, err error) {
	defer wrap(&err, "list transactions")
	l := listQuery{selectFrom: `SELECT ` + postingColumns + ` FROM postings`, order: "id",
		cursor: func(ctx context.Context, cursor string) (int64, error) {
			var id int64
			if _, err := fmt.Sscan(cursor, &id); err != nil || fmt.Sprint(id) != cursor {
				return 0, service.ErrNoRecord
			}
			err := q.queryRowTouching(ctx, reading(postingsTable), `SELECT id FROM postings WHERE app_id = ? AND id = ?`, appID, id).Scan(&id)
			return id, noRecord(err)
		}}
	var match listQuery
	transactionMatch(&match, f)
	if err := listRange(ctx, &l, appID, f.Range, match, q.createdIndexSeek("postings", "id")); err != nil {
		return nil, false, err
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (ledger.Posting, error) { return scanPosting(r) })
}
