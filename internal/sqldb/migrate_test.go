package sqldb_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/disburse/disburse/internal/sqldb"
)

// migrations returns the files of a migrations folder for both engines. The files are given out
// of order, and 0002 only works after 0001, so a run in the wrong order fails.
func migrations(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range files {
		for _, dialect := range []string{"sqlite", "postgres"} {
			fsys["migrations/"+dialect+"/"+name] = &fstest.MapFile{Data: []byte(body)}
		}
	}
	return fsys
}

var firstTwo = map[string]string{
	"0002_fill.sql":  "-- seed a row\nINSERT INTO things (id, name) VALUES (1, 'first');\nALTER TABLE things ADD COLUMN note TEXT;\n",
	"0001_table.sql": "CREATE TABLE things (\n  id INTEGER PRIMARY KEY,\n  name TEXT NOT NULL\n);\n",
}

func applied(t *testing.T, db *sqldb.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM test_migrations ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	engines(t, func(t *testing.T, db *sqldb.DB) {
		if err := db.Migrate(ctx, migrations(firstTwo), "migrations", "test_migrations"); err != nil {
			t.Fatalf("first Migrate: %v", err)
		}
		// Again: nothing is re-run (0001 would fail, its table exists; 0002 would add a row).
		if err := db.Migrate(ctx, migrations(firstTwo), "migrations", "test_migrations"); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		var rows int
		if err := db.QueryRow(`SELECT COUNT(*) FROM things`).Scan(&rows); err != nil || rows != 1 {
			t.Errorf("things has %d rows (%v), want 1", rows, err)
		}

		// A later file runs alone; a failing one is rolled back and not recorded.
		more := map[string]string{"0003_more.sql": "INSERT INTO things (id, name, note) VALUES (2, 'second', 'n');\n"}
		for k, v := range firstTwo {
			more[k] = v
		}
		more["0004_broken.sql"] = "INSERT INTO things (id, name) VALUES (3, 'third');\nINSERT INTO nowhere VALUES (1);\n"
		err := db.Migrate(ctx, migrations(more), "migrations", "test_migrations")
		if err == nil || !strings.Contains(err.Error(), "0004_broken.sql") {
			t.Errorf("Migrate with a broken file = %v, want an error naming it", err)
		}
		if got, want := strings.Join(applied(t, db), ","), "0001_table.sql,0002_fill.sql,0003_more.sql"; got != want {
			t.Errorf("applied %s, want %s", got, want)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM things`).Scan(&rows); err != nil || rows != 2 {
			t.Errorf("things has %d rows (%v), want 2: the broken migration's first statement must roll back", rows, err)
		}
	})
}

func TestMigrateWithoutFiles(t *testing.T) {
	db := open(t, t.TempDir()+"/test.db")
	err := db.Migrate(context.Background(), fstest.MapFS{}, "migrations", "test_migrations")
	if err == nil {
		t.Error("Migrate with no files succeeded")
	}
}
