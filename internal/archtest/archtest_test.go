// Package archtest enforces the import rules of docs/ARCHITECTURE.md on the packages of the
// module. A rule about a package that does not exist yet is skipped, so the rules bite as soon as
// the package appears.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rule constrains what a top-level package (and every package below it, such as views/pages)
// may depend on among the module's own packages. Standard and third-party packages are free.
type rule struct {
	pkg string
	// only, when not nil, lists the packages of ours that pkg may import. Its dependencies are
	// checked transitively too: they may reach what the listed packages may reach, nothing more.
	only []string
	// never lists the packages of ours that pkg must not depend on, directly or not.
	never []string
}

var none = []string{}

// rules is docs/ARCHITECTURE.md's "Import rules". sqldb is the neutral engine layer the stores
// share, ledger is pure posting logic, sanctions is pure list reading and name matching, the store and the sandbox (rails, notifier, checks)
// implement interfaces the service declares (so they import the service, never the other way;
// payoutd wires them in), and static is the embedded assets and their serving, shared by both
// faces. Packages under internal/ are named without that prefix.
var rules = []rule{
	{pkg: "payouts", only: none},
	{pkg: "sqldb", only: none},
	{pkg: "ledger", only: none},
	{pkg: "sanctions", only: none},
	{pkg: "taxform", only: []string{"payouts"}},
	{pkg: "service", only: []string{"payouts", "ledger", "sanctions", "taxform"}},
	{pkg: "store", only: []string{"service", "payouts", "ledger", "sanctions", "sqldb"}},
	{pkg: "sandbox", only: []string{"service", "payouts"}},
	{pkg: "rails", only: []string{"service", "payouts"}},
	{pkg: "notify", only: []string{"service", "payouts"}},
	{pkg: "webhook", only: []string{"service", "payouts"}},
	{pkg: "dashstore", only: []string{"payouts", "sqldb"}},
	{pkg: "client", only: []string{"payouts"}},
	{pkg: "views", only: []string{"payouts"}}, // view models, never storage records
	{pkg: "api", only: []string{"service", "payouts", "views", "ledger", "static", "httpserve"}},
	{pkg: "hosted", only: []string{"service", "payouts", "views", "ledger", "static"}},
	{pkg: "web", never: []string{"service", "store", "api", "hosted"}},
	{pkg: "handlers", never: []string{"service", "store", "api", "hosted"}},
}

// goPackage is the part of `go list -json` output the rules need.
type goPackage struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
}

// public lists the top-level folders whose packages others may import: the product's faces, the
// typed client and its wire vocabulary. Everything else of the service lives under internal/.
var public = []string{"cmd", "web", "views", "static", "handlers", "client", "payouts"}

func TestOnlyPublicPackagesOutsideInternal(t *testing.T) {
	module, pkgs := listPackages(t)
	for _, p := range pkgs {
		rest, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok || strings.HasPrefix(rest, "internal/") {
			continue
		}
		if first, _, _ := strings.Cut(rest, "/"); !slices.Contains(public, first) {
			t.Errorf("%s is outside internal/; only %s may be", p.ImportPath, strings.Join(public, ", "))
		}
	}
}

// TestInternalNeverDependsOnTheDashboard: the service's packages never depend on the
// dashboard's faces, directly or through another package; tools that drive the dashboard live
// beside the commands (cmd/screenshots).
func TestInternalNeverDependsOnTheDashboard(t *testing.T) {
	module, pkgs := listPackages(t)
	for _, p := range pkgs {
		if !strings.HasPrefix(p.ImportPath, module+"/internal/") {
			continue
		}
		for _, dep := range p.Deps {
			if c := component(module, dep); c == "handlers" || c == "web" {
				t.Errorf("%s depends on %s: nothing under internal/ may depend on handlers or web", p.ImportPath, dep)
			}
		}
	}
}

func TestImportRules(t *testing.T) {
	module, pkgs := listPackages(t)
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			if !slices.ContainsFunc(pkgs, func(p goPackage) bool { return component(module, p.ImportPath) == r.pkg }) {
				t.Skipf("no package %s/%s yet", module, r.pkg)
			}
			for _, v := range violations(module, r, pkgs) {
				t.Error(v)
			}
		})
	}
}

// violations returns one message per forbidden dependency of the packages r is about.
func violations(module string, r rule, pkgs []goPackage) []string {
	reach := reachable(r.pkg)
	var out []string
	for _, p := range pkgs {
		if component(module, p.ImportPath) != r.pkg {
			continue
		}
		if r.only != nil {
			for _, imp := range p.Imports {
				if c := component(module, imp); c != "" && c != r.pkg && !slices.Contains(r.only, c) {
					out = append(out, p.ImportPath+" imports "+imp+"; "+r.pkg+" may import only "+list(module, r.only)+" of ours")
				}
			}
			for _, dep := range p.Deps {
				if c := component(module, dep); c != "" && !reach[c] && !slices.Contains(p.Imports, dep) {
					out = append(out, p.ImportPath+" depends on "+dep+" through its imports; "+r.pkg+" may reach only "+list(module, keys(reach)))
				}
			}
		}
		for _, dep := range p.Deps {
			if c := component(module, dep); slices.Contains(r.never, c) {
				out = append(out, p.ImportPath+" depends on "+dep+"; "+r.pkg+" must never depend on "+list(module, r.never))
			}
		}
	}
	return out
}

// reachable returns the packages of ours that pkg may depend on transitively: itself, what its
// rule allows, and what those may reach in turn. A package without an only-rule adds nothing.
func reachable(pkg string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, r := range rules {
			if r.pkg == p {
				for _, q := range r.only {
					walk(q)
				}
			}
		}
	}
	walk(pkg)
	return seen
}

// component returns the top-level folder of an import path of ours ("views" for
// MODULE/views/pages), looking through internal/ ("store" for MODULE/internal/store/migrations),
// or "" for a package that is not ours.
func component(module, importPath string) string {
	rest, ok := strings.CutPrefix(importPath, module+"/")
	if !ok {
		return ""
	}
	rest = strings.TrimPrefix(rest, "internal/")
	first, _, _ := strings.Cut(rest, "/")
	return first
}

func list(module string, pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing"
	}
	full := make([]string, len(pkgs))
	for i, p := range pkgs {
		full[i] = module + "/" + p
	}
	slices.Sort(full)
	return strings.Join(full, ", ")
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// listPackages runs go list over the whole module. -e keeps a package that does not compile in
// the list with the imports it declares: a broken build is for the other tests to report.
func listPackages(t *testing.T) (module string, pkgs []goPackage) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", commandError(err))
	}
	module = strings.TrimSpace(string(out))

	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = moduleRoot(t)
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", commandError(err))
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return module, pkgs
}

// moduleRoot returns the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", commandError(err))
	}
	return filepath.Dir(strings.TrimSpace(string(gomod)))
}

// commandError adds what a failed command printed to its error.
func commandError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return errors.New(err.Error() + ": " + strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}

// TestViolations shows that the rules catch what they forbid and let through what they allow,
// on made-up packages of a module "m".
func TestViolations(t *testing.T) {
	pkg := func(path string, imports, deps []string) goPackage {
		return goPackage{ImportPath: path, Imports: imports, Deps: append(deps, imports...)}
	}
	tests := []struct {
		name string
		pkgs []goPackage
		rule string
		want int
	}{
		{"vocabulary uses only the standard library", []goPackage{pkg("m/payouts", []string{"time", "errors"}, nil)}, "payouts", 0},
		{"vocabulary imports the engine", []goPackage{pkg("m/payouts", []string{"m/sqldb"}, nil)}, "payouts", 1},
		{"store imports its own subpackage", []goPackage{pkg("m/store", []string{"m/store/migrations", "m/sqldb", "m/payouts"}, nil)}, "store", 0},
		{"store implements the service's interface", []goPackage{pkg("m/internal/store", []string{"m/internal/service", "m/internal/sqldb"}, []string{"m/payouts", "m/internal/ledger"})}, "store", 0},
		{"store imports api", []goPackage{pkg("m/internal/store", []string{"m/internal/api"}, nil)}, "store", 1},
		{"service imports store", []goPackage{pkg("m/internal/service", []string{"m/internal/store"}, nil)}, "service", 1},
		{"sandbox implements the service's interfaces", []goPackage{pkg("m/internal/sandbox", []string{"m/internal/service", "m/payouts"}, []string{"m/internal/ledger"})}, "sandbox", 0},
		{"sandbox imports store", []goPackage{pkg("m/internal/sandbox", []string{"m/internal/service", "m/internal/store"}, nil)}, "sandbox", 1},
		{"service imports sandbox", []goPackage{pkg("m/internal/service", []string{"m/internal/sandbox", "m/payouts"}, nil)}, "service", 1},
		{"api reaches ledger through service", []goPackage{pkg("m/api", []string{"m/service", "github.com/gofiber/fiber/v2"}, []string{"m/ledger"})}, "api", 0},
		{"api reaches sqldb through service", []goPackage{pkg("m/api", []string{"m/service"}, []string{"m/sqldb"})}, "api", 1},
		{"api imports store", []goPackage{pkg("m/api", []string{"m/store", "m/service"}, nil)}, "api", 1},
		{"api reaches store through views", []goPackage{pkg("m/api", []string{"m/views/pages"}, []string{"m/store"})}, "api", 1},
		{"client imports service", []goPackage{pkg("m/client", []string{"net/http", "m/service"}, []string{"m/payouts"})}, "client", 1},
		{"handlers use the client", []goPackage{pkg("m/handlers", []string{"m/client", "m/web", "m/views/pages"}, []string{"m/payouts"})}, "handlers", 0},
		{"handlers reach service through views", []goPackage{pkg("m/handlers", []string{"m/views/pages"}, []string{"m/service"})}, "handlers", 1},
		{"web imports store and hosted", []goPackage{pkg("m/web", []string{"m/store", "m/hosted"}, nil)}, "web", 2},
		{"other packages are not the rule's business", []goPackage{pkg("m/cmd/payoutd", []string{"m/store", "m/api"}, nil)}, "web", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := slices.IndexFunc(rules, func(r rule) bool { return r.pkg == tt.rule })
			if i < 0 {
				t.Fatalf("no rule for %s", tt.rule)
			}
			got := violations("m", rules[i], tt.pkgs)
			if len(got) != tt.want {
				t.Errorf("got %d violations, want %d: %q", len(got), tt.want, got)
			}
		})
	}
}
