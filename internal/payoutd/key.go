package payoutd

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/disburse/disburse/internal/sqldb"
)

// KeySize is the length of the encryption key: AES-256.
const KeySize = 32

// ParseKey reads an encryption key written as 64 hex digits or as base64 (standard or URL
// alphabet, padded or not) of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if k, err := hex.DecodeString(s); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != KeySize {
				return nil, fmt.Errorf("encryption key: %d bytes, want %d", len(k), KeySize)
			}
			return k, nil
		}
	}
	return nil, fmt.Errorf("encryption key: want %d bytes written as hex or base64", KeySize)
}

// KeyFile is where payoutd keeps the generated encryption key of a SQLite database: beside it.
func KeyFile(db string) string { return db + ".key" }

// EncryptionKey returns the key to seal the secrets of database db with: configured when it is
// set, otherwise for SQLite the one kept in KeyFile(db), generated for a new database only: a
// database that exists without its key file was restored or copied without it, and a new key
// would seal new secrets beside ones it cannot open. PostgreSQL runs in production, where a key
// written to some machine's disk would be lost or copied: it must be configured. The dashboard's
// own database gets its key the same way.
func EncryptionKey(configured []byte, db string) ([]byte, error) {
	if len(configured) > 0 {
		if len(configured) != KeySize {
			return nil, fmt.Errorf("encryption key: %d bytes, want %d", len(configured), KeySize)
		}
		return configured, nil
	}
	if sqldb.IsPostgresDSN(db) {
		return nil, errors.New("an encryption key is required with PostgreSQL: set --encryption-key or DISBURSE_ENCRYPTION_KEY (32 bytes, hex or base64)")
	}
	// Looked for before the key file: the key file of a new database is made before it, so a
	// database seen here had its key file already when it is read below.
	_, err := os.Stat(db)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	exists := err == nil
	key, err := readKeyFile(KeyFile(db))
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if exists {
		return nil, fmt.Errorf("%s exists without its key file %s: restore the key file that was backed up with it, "+
			"or set --encryption-key (DISBURSE_ENCRYPTION_KEY) to the key it was made with; "+
			"a key is made only for a new database", db, KeyFile(db))
	}
	// The database's folder may not exist yet: the store creates it the same way.
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return nil, fmt.Errorf("create database folder: %w", err)
	}
	return createKeyFile(KeyFile(db))
}

// readKeyFile reads the key in the file at path; fs.ErrNotExist when there is none.
func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// createKeyFile writes a new key to path, unless a process starting beside this one wrote its
// own first: then it returns that one.
func createKeyFile(path string) ([]byte, error) {
	key := make([]byte, KeySize)
	rand.Read(key)
	// Written aside and linked into place, so that a process starting beside us at the same
	// moment never reads a half-written key, and the first link wins for both.
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("create encryption key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write encryption key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readKeyFile(path)
	} else if err != nil {
		return nil, fmt.Errorf("write encryption key file: %w", err)
	}
	return key, nil
}
