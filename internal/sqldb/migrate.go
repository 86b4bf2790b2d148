package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Migrate applies, in name order, the *.sql files of fsys under dir/<dialect>/ that have not been
// applied yet, each in its own transaction, and records them in table. On PostgreSQL an advisory
// lock keeps two starting instances from migrating at once.
func (db *DB) Migrate(ctx context.Context, fsys fs.FS, dir, table string) error {
	names, err := fs.Glob(fsys, path.Join(dir, string(db.Dialect), "*.sql"))
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("sqldb: no migrations under %s/%s", dir, db.Dialect)
	}
	sort.Strings(names)

	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if db.Dialect == Postgres {
		// A migration may wait for another instance's and rebuild an index of a large table: the
		// service's timeouts (OpenWith) are for its requests, not for this. RESET gives the
		// connection its own back before the pool has it again.
		if _, err := conn.ExecContext(ctx, `SET lock_timeout = 0; SET statement_timeout = 0`); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `RESET lock_timeout; RESET statement_timeout`)
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, table); err != nil {
			return fmt.Errorf("sqldb: migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, table)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (name TEXT PRIMARY KEY)`); err != nil {
		return fmt.Errorf("sqldb: create %s: %w", table, err)
	}
	for _, name := range names {
		base := path.Base(name)
		var one int
		err := conn.QueryRowContext(ctx, db.Rebind(`SELECT 1 FROM `+table+` WHERE name = ?`), base).Scan(&one)
		if err == nil {
			continue
		}
		if err != sql.ErrNoRows {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, stmt := range splitStatements(string(body)) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				tx.Rollback()
				return fmt.Errorf("sqldb: migration %s: %w", base, err)
			}
		}
		if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO `+table+` (name) VALUES (?)`), base); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("sqldb: migration %s: %w", base, err)
		}
	}
	return nil
}

// splitStatements splits a migration file on semicolons that end a line. Migrations keep to
// plain DDL, so no statement holds such a semicolon inside a string.
func splitStatements(body string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			if s := strings.TrimSpace(cur.String()); s != ";" {
				out = append(out, s)
			}
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
