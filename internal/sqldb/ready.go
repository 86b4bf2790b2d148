package sqldb

import (
	"context"
	"fmt"
	"io/fs"
	"path"
)

// Ready reports whether the database answers and every migration of fsys under dir/<dialect>/
// is recorded in table: what a readiness probe asks of a process that migrated at start (another
// instance may since have been rolled back, or the database restored from an older backup).
func (db *DB) Ready(ctx context.Context, fsys fs.FS, dir, table string) error {
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	names, err := fs.Glob(fsys, path.Join(dir, string(db.Dialect), "*.sql"))
	if err != nil {
		return err
	}
	var applied int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&applied); err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	if applied < len(names) {
		return fmt.Errorf("%d of %d migrations applied", applied, len(names))
	}
	return nil
}
