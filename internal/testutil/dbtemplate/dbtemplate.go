// Package dbtemplate gives each test a SQLite database that starts as a copy of one made once
// per test binary, instead of one that runs every migration again: each migration commits, so a
// fresh schema costs a test dozens of fsyncs, and the migrations were a third of the handlers'
// tests' CPU. The migrations still run, once per binary, through the same Open a service or
// dashboard uses; the store's own tests run them from an empty database on each engine.
package dbtemplate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Template is a migrated SQLite database, kept in memory once made.
type Template struct {
	migrate func(ctx context.Context, path string) error

	once  sync.Once
	image []byte // the database file after migrate closed it
	err   error
}

// New returns the template that migrate makes: it opens (and so migrates) the SQLite file at
// path and closes it again.
func New(migrate func(ctx context.Context, path string) error) *Template {
	return &Template{migrate: migrate}
}

// Write writes a copy of the template at path, a new file only its owner may read, as the
// database's Open would make it, and fails t when the template cannot be made.
func (tp *Template) Write(t testing.TB, path string) {
	t.Helper()
	tp.once.Do(func() { tp.image, tp.err = tp.make() })
	if tp.err != nil {
		t.Fatalf("dbtemplate: %v", tp.err)
	}
	if err := os.WriteFile(path, tp.image, 0o600); err != nil {
		t.Fatalf("dbtemplate: %v", err)
	}
}

func (tp *Template) make() ([]byte, error) {
	dir, err := os.MkdirTemp("", "dbtemplate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "template.db")
	if err := tp.migrate(context.Background(), path); err != nil {
		return nil, fmt.Errorf("migrate the template: %w", err)
	}
	// Closing the last connection checkpoints the write-ahead log into the file and removes it;
	// a log left behind would hold part of the schema the copy lacks.
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the template's write-ahead log is still there after close (%v)", err)
	}
	return os.ReadFile(path)
}
