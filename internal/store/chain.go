package store

import (
	"context"
	"errors"
	"slices"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

// chainItem is a posting a batch's job made or settled, entered in its app's chain
// (ledger.Chainer) before the commit, as the job left it.
type chainItem struct {
	posting ledger.Posting
	settles bool
}

const (
	insertChainEntry = `INSERT INTO ledger_chain (app_id, seq, posting_id, settles, hash)`
	insertChainHead  = `INSERT INTO ledger_chain_heads (app_id, seq, hash)`
	// lockChainHeads makes each app's head if it has none and locks it (PostgreSQL), in app
	// order: a writer adds entries after the head it read, so two writers of one app, in this
	// process or another, take turns from here to their commit.
	lockChainHeads = ` ON CONFLICT (app_id) DO UPDATE SET seq = ledger_chain_heads.seq RETURNING app_id, seq, hash`
	moveChainHeads = ` ON CONFLICT (app_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`
)

// appChain is an app's chain entry or head, as written to ledger_chain or ledger_chain_heads.
type appChain struct {
	app   string
	entry ledger.ChainEntry
}

var (
	chainEntryWriter = writer[appChain]{insert: insertChainEntry, values: func(c *appChain) []any {
		return []any{c.app, c.entry.Seq, c.entry.PostingID, c.entry.Settles, c.entry.Hash}
	}}
	chainHeadValues = func(c *appChain) []any { return []any{c.app, c.entry.Seq, c.entry.Hash} }
	lockHeadWriter  = writer[appChain]{insert: insertChainHead, tail: lockChainHeads, values: chainHeadValues}
	moveHeadWriter  = writer[appChain]{insert: insertChainHead, tail: moveChainHeads, values: chainHeadValues}
)

// chainHeadsStmts lock and read the heads of the apps into heads.
func (q *Queries) chainHeadsStmts(apps []string, heads map[string]ledger.ChainHead) ([]sqldb.Stmt, error) {
	rows := make([]appChain, len(apps))
	for i, app := range apps {
		rows[i] = appChain{app: app, entry: ledger.ChainEntry{Hash: []byte{}}}
	}
	stmts, err := lockHeadWriter.stmts(q.dialect, rows)
	for i := range stmts {
		stmts[i].Row = func(scan func(...any) error) error {
			var app string
			var h ledger.ChainHead
			err := scan(&app, &h.Seq, &h.Hash)
			heads[app] = h
			return err
		}
	}
	return stmts, err
}

// chainStmts enter the items in their apps' chains after the heads read, and move the heads,
// there and in heads.
func (q *Queries) chainStmts(items []chainItem, heads map[string]ledger.ChainHead) ([]sqldb.Stmt, error) {
	chains := map[string]*ledger.Chainer{}
	var entries, moved []appChain
	var apps []string
	for _, it := range items {
		app := it.posting.AppID
		c, ok := chains[app]
		if !ok {
			h, ok := heads[app]
			if !ok {
				return nil, errors.New("store: the chain head of app " + app + " was not read")
			}
			c = ledger.NewChainer(q.chainKey, h)
			chains[app] = c
			apps = append(apps, app)
		}
		entries = append(entries, appChain{app: app, entry: c.Add(it.posting, it.settles)})
	}
	slices.Sort(apps)
	for _, app := range apps {
		h := chains[app].Head()
		heads[app] = h
		moved = append(moved, appChain{app: app, entry: ledger.ChainEntry{Seq: h.Seq, Hash: h.Hash}})
	}
	stmts, err := chainEntryWriter.stmts(q.dialect, entries)
	if err != nil {
		return nil, err
	}
	heads2, err := moveHeadWriter.stmts(q.dialect, moved)
	return append(stmts, heads2...), err
}

// chainApps are the apps of items, in order.
func chainApps(items []chainItem) []string {
	var apps []string
	for _, it := range items {
		if !slices.Contains(apps, it.posting.AppID) {
			apps = append(apps, it.posting.AppID)
		}
	}
	slices.Sort(apps)
	return apps
}

// ChainUnchained enters in a chain the postings of every app that has postings and no chain:
// those made before migration 0022, chained once as they stand, in id order, each made as it is
// now (their history before it is not known). Each app's in its own transaction, which locks its
// head first, so two instances starting at once chain an app once.
func (s *Store) ChainUnchained(ctx context.Context) (err error) {
	defer wrap(&err, "chain the postings made before the chain")
	rows, err := s.conn.QueryContext(ctx, sqldb.Rebind(s.dialect, `SELECT a.id FROM apps a
		WHERE NOT EXISTS (SELECT 1 FROM ledger_chain_heads h WHERE h.app_id = a.id)
			AND EXISTS (SELECT 1 FROM postings p WHERE p.app_id = a.id)`))
	if err != nil {
		return err
	}
	var apps []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		apps = append(apps, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, app := range apps {
		err := s.InTx(ctx, func(sq service.Queries) error { return sq.(*Queries).chainApp(ctx, app) })
		if err != nil {
			return err
		}
	}
	return nil
}

// unchainedPage bounds the postings chainApp reads at once.
const unchainedPage = 5000

// chainApp chains every posting of an app whose chain is empty.
func (q *Queries) chainApp(ctx context.Context, app string) error {
	heads := map[string]ledger.ChainHead{}
	lock, err := q.chainHeadsStmts([]string{app}, heads)
	if err != nil {
		return err
	}
	if err := q.runInBatch(ctx, lock); err != nil {
		return err
	}
	if heads[app].Seq > 0 { // chained meanwhile
		return nil
	}
	var after int64
	for {
		postings, err := scanPostings(q.queryTouching(ctx, reading(postingsTable), `SELECT `+postingColumns+` FROM postings
			WHERE app_id = ? AND id > ? ORDER BY id LIMIT ?`, app, after, unchainedPage))
		if err != nil || len(postings) == 0 {
			return err
		}
		items := make([]chainItem, len(postings))
		for i, p := range postings {
			items[i] = chainItem{posting: p}
		}
		stmts, err := q.chainStmts(items, heads)
		if err != nil {
			return err
		}
		if err := q.runInBatch(ctx, stmts); err != nil {
			return err
		}
		after = postings[len(postings)-1].ID
	}
}
