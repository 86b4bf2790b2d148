package sqldb

import (
	"context"
	"database/sql"
	"sync"
)

// maxStmts bounds the statements kept prepared per pool: queries built with a varying number of
// placeholders beyond it run unprepared.
const maxStmts = 256

// stmts keeps one prepared statement per query text for a pool, so SQLite compiles each query
// once per connection instead of on every call (a quarter of a transfer's CPU otherwise).
// PostgreSQL needs none: pgx keeps its own statement cache per connection.
type stmts struct {
	pool *sql.DB
	mu   sync.Mutex
	m    map[string]*sql.Stmt
}

func newStmts(pool *sql.DB) *stmts { return &stmts{pool: pool, m: map[string]*sql.Stmt{}} }

// get returns the statement of query, preparing it on first use; nil when the cache is full or
// the query does not prepare (the caller then runs it unprepared and reports its error).
func (c *stmts) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	s, full := c.m[query], len(c.m) >= maxStmts
	c.mu.Unlock()
	if s != nil || full {
		return s
	}
	s, err := c.pool.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prior := c.m[query]; prior != nil {
		s.Close()
		return prior
	}
	c.m[query] = s
	return s
}

func (c *stmts) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.m {
		s.Close()
		delete(c.m, q)
	}
}

// Prepared returns query prepared for tx, or for the read pool when tx is nil, reusing what
// earlier calls prepared on the same connection. It is nil where queries are not prepared
// (PostgreSQL, or a query that does not prepare): run the query unprepared then.
func (db *DB) Prepared(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	if db.readStmts == nil {
		return nil
	}
	if tx == nil {
		return db.readStmts.get(ctx, query)
	}
	s := db.writeStmts.get(ctx, query)
	if s == nil {
		return nil
	}
	return tx.StmtContext(ctx, s)
}
