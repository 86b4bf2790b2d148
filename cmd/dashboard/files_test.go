package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Finding 5: after a real start (the dashboard and its embedded service, both on SQLite), every
// file the programs made is readable by their user only, and every folder is 0700: the
// databases, their -wal and -shm files, the key files.
func TestRunCreatesPrivateFiles(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	_, _, stop := start(t, []string{"--addr", "127.0.0.1:0", "--service-addr", "127.0.0.1:0",
		"--dashboard-db", filepath.Join(data, "dashboard.db"), "--db", filepath.Join(data, "disburse.db")}, nil)
	defer stop()

	seen := map[string]bool{}
	err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = fs.ModeDir | 0o700
		}
		if info.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode(), want)
		}
		seen[strings.TrimPrefix(path, data)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dashboard.db", "dashboard.db-wal", "dashboard.db-shm", "dashboard.db.key",
		"disburse.db", "disburse.db-wal", "disburse.db-shm", "disburse.db.key"} {
		if !seen[string(os.PathSeparator)+name] {
			t.Errorf("no %s in the data folder (saw %v): the test checks nothing of it", name, seen)
		}
	}
}
