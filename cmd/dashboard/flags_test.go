package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/cli"
)

var update = flag.Bool("update", false, "rewrite testdata/help-dashboard.txt from dashboard -h")

// TestHelpOutput: -h prints every flag, with its default, help and variable, as testdata holds
// it (go test ./cmd/dashboard -run TestHelpOutput -update rewrites it).
func TestHelpOutput(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseConfig([]string{"-h"}, func(string) string { return "" }, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parseConfig(-h) = %v, want flag.ErrHelp", err)
	}
	path := filepath.Join("testdata", "help-dashboard.txt")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("dashboard -h printed:\n%s\nwant (%s):\n%s", out.String(), path, want)
	}
}

// TestFlagTable goes over every row of the flag table: its help names its variable, the variable
// sets its default, and its default, given as the variable or as the flag, reads into the same
// configuration as nothing given.
func TestFlagTable(t *testing.T) {
	none, err := parseConfig(nil, getenvOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, row := range dashboardFlags {
		t.Run(row.Name, func(t *testing.T) {
			if !strings.Contains(row.Help, "("+row.Env+")") {
				t.Errorf("the help %q does not name %s", row.Help, row.Env)
			}
			if other, ok := seen[row.Env]; ok {
				t.Errorf("%s is the variable of --%s too", row.Env, other)
			}
			seen[row.Env] = row.Name

			fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
			var flags cli.Flags[config]
			flags.Register(fs, getenvOf(map[string]string{row.Env: "from-the-environment"}), row)
			if got := fs.Lookup(row.Name).DefValue; got != "from-the-environment" {
				t.Errorf("with %s set, the default of --%s is %q", row.Env, row.Name, got)
			}
			for _, given := range []struct {
				args []string
				vars map[string]string
			}{{[]string{"--" + row.Name, row.Default}, nil}, {nil, map[string]string{row.Env: row.Default}}} {
				c, err := parseConfig(given.args, getenvOf(given.vars), io.Discard)
				if err != nil {
					t.Fatalf("the default %q: %v", row.Default, err)
				}
				if !reflect.DeepEqual(c, none) {
					t.Errorf("the default %q given (%q, %v) reads as %+v, want %+v", row.Default, given.args, given.vars, c, none)
				}
			}
		})
	}
}

func getenvOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}
