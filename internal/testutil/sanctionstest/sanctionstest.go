// Package sanctionstest writes OFAC's list files for tests, in the legacy CSV layout Treasury
// publishes (no header, "-0- " for an empty field), and loads them.
package sanctionstest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/disburse/disburse/internal/sanctions"
)

// Individual is a row of sdn.csv (or cons_prim.csv) listing an individual: its ent_num, name
// ("LAST, First"), programs as OFAC writes several ("SDGT] [IRGC") and remarks ("DOB 12 Mar
// 1970.").
func Individual(num int, name, programs, remarks string) string {
	return strconv.Itoa(num) + `,"` + name + `","individual","` + programs + `",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"` + remarks + `"` + "\n"
}

// Write writes the files (name to content) into dir, creating or replacing them, and returns
// dir.
func Write(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Load writes the files into a new folder and loads it as payoutd does, returning the list and
// the folder.
func Load(t testing.TB, files map[string]string) (*sanctions.List, string) {
	t.Helper()
	dir := Write(t, t.TempDir(), files)
	l, err := sanctions.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l, dir
}
