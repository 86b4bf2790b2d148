package payoutd

import (
	"context"
	"fmt"
	"os"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
)

// Backup copies the SQLite database db, which a payoutd may be serving, to dest consistently
// (store.Store.Backup), and its generated key file beside the copy, KeyFile(dest), so that the
// copy opens as it is: restoring is moving both into place. It reports whether it copied a key
// file; a database whose key is configured has none, and the key must be kept apart. db must
// exist (store.OpenExisting): a mistyped path is refused rather than backed up empty.
// PostgreSQL is refused.
func Backup(ctx context.Context, db, dest string) (keyCopied bool, err error) {
	if sqldb.IsPostgresDSN(db) {
		return false, store.ErrBackupNeedsSQLite
	}
	key, err := os.ReadFile(KeyFile(db))
	if err != nil && !os.IsNotExist(err) {
		return false, err
	}
	if _, err := os.Stat(KeyFile(dest)); key != nil && err == nil {
		return false, fmt.Errorf("%s exists: back up to a new name", KeyFile(dest))
	}
	st, err := store.OpenExisting(ctx, db, sqldb.Timeouts{})
	if err != nil {
		return false, fmt.Errorf("open database: %w", err)
	}
	defer st.Close()
	if err := st.Backup(ctx, dest); err != nil {
		return false, err
	}
	if key == nil {
		return false, nil
	}
	if err := writeNewFile(KeyFile(dest), key); err != nil {
		return false, fmt.Errorf("copy the key file: %w", err)
	}
	return true, nil
}

// writeNewFile writes b to a file that must not exist yet, 0600, flushed to disk.
func writeNewFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
