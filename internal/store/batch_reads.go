package store

import (
	"context"
	"errors"
	"slices"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// minAhead is the fewest users, or idempotency keys, of a batch of several jobs that the batch
// view reads or claims before the jobs run: on PostgreSQL a read ahead of a few rows took 0.3–0.7
// ms against 0.03 ms a row read alone (an 8-client payout run, where it cost a tenth of the
// rate), and a view for every shared batch lowered the 64-client transfer rate by about a fifth.
const minAhead = 8

// leastAhead is the fewest keys, or users, its jobs said that make a batch build its view; 0 for
// none. A batch of several needs minAhead. A job alone needs one on PostgreSQL: the view's
// statements are the ones it would send itself, one round trip in all instead of one each (a
// transfer's six). On SQLite they would be the same statements, run the same way.
func leastAhead(dialect sqldb.Dialect, shared bool) int {
	switch {
	case shared:
		return minAhead
	case dialect == sqldb.Postgres:
		return 1
	default:
		return 0
	}
}

// startBatch builds the batch view before a batch's first job runs (sqldb.DB.OnBatchStart), from
// what its jobs said they will read and claim (service.Intent): it claims the keys said once in
// the batch (claimKeysStmts), reads the users said, with their wallets, and the apps of the keys
// with their own accounts and webhook endpoints, and on PostgreSQL reserves a posting id per job.
// On PostgreSQL all of it is one round trip (a pipeline); the users' rows are locked as GetUser
// locks them, but a row another transaction holds is skipped (SKIP LOCKED), for its job to read
// itself, in a shared batch or alone (readUsersStmt). A deleted user is left out, for its job's
// own read to refuse. It belongs to no job: a job of a shared batch that fails undoes none of it,
// and gives back only the key it took; a job alone that fails rolls it back with its
// transaction. Each job then reads through the view (batchReads, takeKeyClaimedAhead).
func (s *Store) startBatch(ctx context.Context, b *sqldb.Batch) error {
	var userIDs, appIDs []string
	said := map[keyRef][]service.IdempotencyRecord{}
	for _, jobIntent := range b.Intents() {
		intent, _ := jobIntent.(service.Intent) // nil for a job sent through sqldb.DB.InTx
		for _, id := range intent.UsersToRead {
			if payouts.ValidID(id) {
				userIDs = append(userIDs, id)
			}
		}
		if k := intent.KeyToClaim; k != nil {
			ref := keyRef{k.AppID, k.Key}
			said[ref] = append(said[ref], *k)
			appIDs = append(appIDs, k.AppID)
		}
	}
	var keys []service.IdempotencyRecord
	for _, ks := range said {
		if len(ks) == 1 { // a key said by two jobs is left for their own claims
			keys = append(keys, ks[0])
		}
	}
	slices.Sort(userIDs)
	userIDs = slices.Compact(userIDs)
	least := leastAhead(s.db.Dialect, b.Shared())
	if least == 0 || (len(keys) < least && len(userIDs) < least) {
		return nil
	}
	q := &Queries{conn: b.Tx(), db: s.db, tx: b.Tx(), batch: b, dialect: s.db.Dialect, chainKey: s.chainKey}
	st := q.batchState()
	var stmts []sqldb.Stmt
	if len(keys) >= least {
		st.keys.claimed = map[keyRef]service.IdempotencyRecord{}
		claims, err := claimKeysStmts(q.dialect, keys, &st.keys)
		if err != nil {
			return err
		}
		stmts = append(stmts, claims...)
	}
	if len(userIDs) >= least {
		stmts = append(stmts, q.readUsersStmt(userIDs, &st.reads))
	}
	if slices.Sort(appIDs); len(appIDs) > 0 {
		appIDs = slices.Compact(appIDs)
		stmts = append(stmts, readAppsStmt(appIDs, &st.reads))
		// What each job of these apps reads once per batch anyway: the app's own accounts (its
		// wallet is in every transfer) and the webhook endpoints its events go to.
		for _, appID := range appIDs {
			st.reads.endpoints[appID] = []service.WebhookEndpointRecord{} // none, until read
			stmts = append(stmts, st.accountsStmt(appAccounts, appID), endpointsStmt(appID, func(e service.WebhookEndpointRecord) {
				st.reads.endpoints[appID] = append(st.reads.endpoints[appID], e)
			}))
		}
	}
	if q.dialect == sqldb.Postgres {
		// A posting id for each job, as the first job's movement would reserve (postingIDs).
		st.reserved = len(b.Intents())
		stmts = append(stmts, reservePostingIDsStmt(st.reserved, &st.postingIDs))
	}
	if err := q.runInBatch(ctx, stmts); err != nil {
		return err
	}
	slices.Sort(st.postingIDs)
	return nil
}

// readUsersStmt reads the users ids with their wallets into the view r. It never waits for a row
// another transaction holds, not even for a job alone: it leaves the row out, for the job that
// reads it to wait for it itself, and a job that only said it might is not held up.
func (q *Queries) readUsersStmt(ids []string, r *batchReads) sqldb.Stmt {
	marks, args := idList(ids)
	return sqldb.Stmt{Query: userSelect + ` WHERE u.id IN (` + marks + `)` + q.lockRowSkipping("u", true), Args: args,
		Row: func(scan func(...any) error) error {
			u, wallet, err := scanUserWallet(scanFunc(scan))
			switch {
			case errors.Is(err, service.ErrNoRecord): // deleted
				return nil
			case err != nil:
				return err
			}
			r.users[u.ID] = userRead{user: u, wallet: wallet}
			return nil
		}}
}

// readAppsStmt reads the apps ids into the view r.
func readAppsStmt(ids []string, r *batchReads) sqldb.Stmt {
	marks, args := idList(ids)
	return sqldb.Stmt{Query: `SELECT ` + appColumns + ` FROM apps WHERE id IN (` + marks + `)`, Args: args,
		Row: func(scan func(...any) error) error {
			a, err := scanApp(scanFunc(scan))
			if err == nil {
				r.keepApp(a)
			}
			return err
		}}
}

// scanFunc is a row's Scan as a function, for the scanners written for *sql.Row.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// batchReads is the batch view: for one batch's transaction, the users its jobs said they would
// read and the apps of their keys, read before they ran (startBatch), and the app rows and
// webhook endpoints its jobs read since, once per batch. It is dropped whole by any statement
// that says it writes a table it copies (touching), so it never holds what the transaction does
// not see. Such a statement makes its job one that changed rows, whose failure fails the batch;
// a job that fails alone has only read, and what it kept stays true.
type batchReads struct {
	apps      map[string]*service.AppRecord
	endpoints map[string][]service.WebhookEndpointRecord
	users     map[string]userRead
}

func newBatchReads() batchReads {
	return batchReads{apps: map[string]*service.AppRecord{}, endpoints: map[string][]service.WebhookEndpointRecord{},
		users: map[string]userRead{}}
}

// userRead is a user read ahead with its wallet (nil when the user has none yet).
type userRead struct {
	user   service.UserRecord
	wallet *ledger.Account
}

// batchReads returns the batch's copies, or nil outside a write transaction.
func (q *Queries) batchReads() *batchReads {
	if q.job == nil {
		return nil
	}
	return &q.job.st.reads
}

// app returns a copy of the app row read earlier in the batch; the caller may change it.
func (r *batchReads) app(id string) (*service.AppRecord, bool) {
	if r == nil {
		return nil, false
	}
	return copyOf(r.apps, id, cloneApp)
}

// keepApp keeps a copy of an app the job read.
func (j *jobState) keepApp(a *service.AppRecord) {
	if j != nil {
		j.st.reads.keepApp(a)
	}
}

func (r *batchReads) keepApp(a *service.AppRecord) { r.apps[a.ID] = cloneApp(a) }

// dropView drops the batch view's copies, for a statement that writes a table they come from.
func (j *jobState) dropView() { j.st.reads = newBatchReads() }

func cloneApp(a *service.AppRecord) *service.AppRecord {
	c := *a
	c.Metadata = slices.Clone(a.Metadata)
	c.BankSealed, c.ComplianceSealed = slices.Clone(a.BankSealed), slices.Clone(a.ComplianceSealed)
	return &c
}

// webhookEndpoints returns a copy of the app's endpoints read earlier in the batch.
func (r *batchReads) webhookEndpoints(appID string) ([]service.WebhookEndpointRecord, bool) {
	if r == nil {
		return nil, false
	}
	return copyOf(r.endpoints, appID, cloneEndpoints)
}

// copyOf returns a copy of what m holds under key, if anything.
func copyOf[V any](m map[string]V, key string, clone func(V) V) (V, bool) {
	v, ok := m[key]
	if !ok {
		var none V
		return none, false
	}
	return clone(v), true
}

// keepWebhookEndpoints keeps a copy of the endpoints of an app the job read.
func (j *jobState) keepWebhookEndpoints(appID string, eps []service.WebhookEndpointRecord) {
	if j != nil {
		j.st.reads.endpoints[appID] = cloneEndpoints(eps)
	}
}

func cloneEndpoints(eps []service.WebhookEndpointRecord) []service.WebhookEndpointRecord {
	out := slices.Clone(eps)
	for i := range out {
		e := &out[i]
		e.EventTypes = slices.Clone(e.EventTypes)
		e.SealedSecret, e.SealedOld = slices.Clone(e.SealedSecret), slices.Clone(e.SealedOld)
	}
	return out
}

// user returns a copy of a user of the app read ahead, with its wallet as read.
func (r *batchReads) user(appID, id string) (*service.UserRecord, *ledger.Account, bool) {
	if r == nil {
		return nil, nil, false
	}
	read, ok := r.users[id]
	if !ok || read.user.AppID != appID {
		return nil, nil, false
	}
	u := cloneUser(read.user)
	if read.wallet == nil {
		return &u, nil, true
	}
	wallet := *read.wallet
	return &u, &wallet, true
}

func cloneUser(u service.UserRecord) service.UserRecord {
	if u.Username != nil {
		name := *u.Username
		u.Username = &name
	}
	if u.DefaultPayoutMethod != nil {
		p := *u.DefaultPayoutMethod
		u.DefaultPayoutMethod = &p
	}
	u.Metadata = slices.Clone(u.Metadata)
	return u
}
