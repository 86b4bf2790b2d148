package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClientModuleBuilds shows that another module can require the client, as README.md's
// "go get github.com/disburse/disburse/client" promises: a scratch module that requires this
// one, replaced by this checkout, builds a program calling the client. It runs offline on the
// module cache the build of this module has already filled.
func TestClientModuleBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("building a scratch module does not run under -short")
	}
	module, _ := listPackages(t)
	root := moduleRoot(t)
	dir := t.TempDir()
	goMod := "module example.com/payer\n\ngo 1.26\n\n" +
		"require " + module + " v0.0.0\n\n" +
		"replace " + module + " => " + filepath.ToSlash(root) + "\n"
	mainGo := `package main

import (
	"context"
	"fmt"

	"` + module + `/client"
	"` + module + `/payouts"
)

func main() {
	c, err := client.New("http://127.0.0.1:8081/api", client.WithCredentials("ck", "sk"))
	if err != nil {
		panic(err)
	}
	_, err = c.ListUsers(context.Background(), payouts.Page{Limit: 1}, payouts.UserFilter{})
	fmt.Println(payouts.ErrorCode(err))
}
`
	// This module's go.sum holds the hashes of every module the client can need.
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"go.mod": []byte(goMod), "main.go": []byte(mainGo), "go.sum": sums} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "payer"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of a module using the client: %v\n%s", err, out)
	}
}

// TestClientDependsOnlyOnPayouts checks the client rule directly, without the skip that
// TestImportRules allows for packages not written yet: the client ships to other modules, so
// of ours it may carry only the wire vocabulary.
func TestClientDependsOnlyOnPayouts(t *testing.T) {
	module, pkgs := listPackages(t)
	i := slices.IndexFunc(pkgs, func(p goPackage) bool { return p.ImportPath == module+"/client" })
	if i < 0 {
		t.Fatalf("no package %s/client", module)
	}
	var ours []string
	for _, dep := range pkgs[i].Deps {
		if strings.HasPrefix(dep, module+"/") {
			ours = append(ours, dep)
		}
	}
	if want := []string{module + "/payouts"}; !slices.Equal(ours, want) {
		t.Errorf("client depends on %v of ours, want only %v", ours, want)
	}
}
