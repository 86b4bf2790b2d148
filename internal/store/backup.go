package store

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/disburse/disburse/internal/sqldb"
)

// ErrBackupNeedsSQLite is Backup's answer on PostgreSQL, whose own tools copy it consistently.
var ErrBackupNeedsSQLite = errors.New("backup copies a SQLite database; back up PostgreSQL with pg_dump " +
	"(or your provider's snapshots and point-in-time recovery)")

// Backup writes a consistent copy of the SQLite database to dest, a file that must not exist,
// while the service goes on writing: VACUUM INTO reads one snapshot of the database (a read
// transaction, so writers never wait for it) and writes it out whole, the write-ahead log
// folded in. The copy is created 0600 and flushed to disk before Backup returns.
func (s *Store) Backup(ctx context.Context, dest string) error {
	if s.db.Dialect != sqldb.SQLite {
		return ErrBackupNeedsSQLite
	}
	// VACUUM INTO takes an empty file: made here, it gets the mode every file of ours has, and
	// O_EXCL refuses to overwrite anything.
	f, err := os.OpenFile(dest, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f.Close()
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest)
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncFile(dest); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// syncFile flushes a written file to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
