package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/help-*.txt from the commands' -h output")

// TestHelpOutput: each command's -h prints its flags, with their defaults, help and variables,
// as testdata holds them (go test ./cmd/payoutd -run TestHelpOutput -update rewrites them).
func TestHelpOutput(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"apps", "create", "-h"}, {"check", "-h"}, {"backup", "-h"}, {"reconcile", "-h"}} {
		name := strings.Join(append([]string{"payoutd"}, args[:len(args)-1]...), "-")
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var out bytes.Buffer
			if err := run(t.Context(), args, env(nil), &out); err != nil {
				t.Fatalf("run(%q) = %v", args, err)
			}
			golden(t, name, out.String())
		})
	}
}

// golden compares got with testdata/help-name.txt, or writes it there under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(wd, "testdata", "help-"+name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s -h printed:\n%s\nwant (%s):\n%s", name, got, path, want)
	}
}

// wd is the package's folder, where testdata is, read before a test moves elsewhere.
var wd, _ = os.Getwd()

// TestFlagTable goes over every row of serve's flag table: its help names its variable, the
// variable sets its default, and its default, given as the variable or as the flag, reads into
// the same configuration as nothing given.
func TestFlagTable(t *testing.T) {
	fs := flag.NewFlagSet("payoutd", flag.ContinueOnError)
	var f flags
	f.register(fs, env(nil), true)
	none, err := parseConfig(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	fs.VisitAll(func(fl *flag.Flag) {
		t.Run(fl.Name, func(t *testing.T) {
			variable := envVar.FindString(fl.Usage)
			if variable == "" {
				t.Fatalf("the help %q names no DISBURSE_* variable", fl.Usage)
			}
			variable = strings.Trim(variable, "()")
			if other, ok := seen[variable]; ok {
				t.Errorf("%s is the variable of --%s too", variable, other)
			}
			seen[variable] = fl.Name

			probe := flag.NewFlagSet("payoutd", flag.ContinueOnError)
			var g flags
			g.register(probe, env(map[string]string{variable: "from-the-environment"}), true)
			if got := probe.Lookup(fl.Name).DefValue; got != "from-the-environment" {
				t.Errorf("with %s set, the default of --%s is %q", variable, fl.Name, got)
			}
			for _, given := range []struct {
				args []string
				vars map[string]string
			}{{[]string{"--" + fl.Name, fl.DefValue}, nil}, {nil, map[string]string{variable: fl.DefValue}}} {
				c, err := parseConfig(given.args, env(given.vars), io.Discard)
				if err != nil {
					t.Fatalf("the default %q: %v", fl.DefValue, err)
				}
				if !reflect.DeepEqual(c, none) {
					t.Errorf("the default %q given (%q, %v) reads as %+v, want %+v", fl.DefValue, given.args, given.vars, c, none)
				}
			}
		})
	})
}

// envVar finds the variable a flag's help names.
var envVar = regexp.MustCompile(`\(DISBURSE_[A-Z0-9_]+\)`)

// TestCollectorTarget: serve sets the collector's target to gcPercent unless GOGC is set, which
// the runtime then reads itself and payoutd leaves alone.
func TestCollectorTarget(t *testing.T) {
	for _, tt := range []struct {
		name string
		vars map[string]string
		want int
	}{
		{"GOGC unset", nil, defaultGCPercent},
		{"GOGC set", map[string]string{"GOGC": "100"}, 0},
		{"GOGC off", map[string]string{"GOGC": "off"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(nil, env(tt.vars), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if c.gcPercent != tt.want {
				t.Errorf("gcPercent = %d, want %d", c.gcPercent, tt.want)
			}
		})
	}
}
