// Package dashstore keeps the operator dashboard's own data: operators and their roles, their
// server-side sessions, the audit log of what they changed, failed login attempts, and the API
// credentials of the Payout Service the dashboard embeds. It runs on SQLite or PostgreSQL through
// sqldb and knows nothing of the Payout Service's storage: the dashboard reaches payouts only
// through the HTTP client.
//
// Expected failures are *payouts.Error values (not-found, invalid-input with Fields), so the
// dashboard maps every error onto forms and pages the same way, wherever it came from.
package dashstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

//go:embed migrations
var migrations embed.FS

// Store is the dashboard's database.
type Store struct {
	db *sqldb.DB
}

// Open opens dsn (a SQLite file path or a postgres:// URL) and applies pending migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, err := sqldb.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// New migrates db and returns a Store on it.
func New(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if err := db.Migrate(ctx, migrations, "migrations", "dashboard_migrations"); err != nil {
		return nil, fmt.Errorf("dashstore: %w", err)
	}
	return &Store{db: db}, nil
}

// pageLimit checks a page's limit as the API checks one (payouts.Page.Validate): 1..100, 0
// meaning payouts.DefaultLimit.
func pageLimit(limit int) (int, error) {
	p := payouts.Page{Limit: limit}
	return p.Limit, p.Validate()
}

// queryPage runs q, whose last argument asks for limit+1 rows, and returns at most limit of them
// scanned, and whether there were more.
func queryPage[T any](ctx context.Context, s *Store, q string, args []any, limit int, scan func(*sql.Rows) (T, error)) ([]T, bool, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(q), args...)
	if err != nil {
		return nil, false, err
	}
	return sqldb.Page(rows, limit, scan)
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Ready reports whether the database answers with its schema up to date, for /readyz.
func (s *Store) Ready(ctx context.Context) error {
	return s.db.Ready(ctx, migrations, "migrations", "dashboard_migrations")
}
