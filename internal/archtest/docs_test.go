package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAPIDocumentsEveryRoute keeps docs/API.md true to internal/api/routes.go: every route there
// has a row in the endpoint table, and every error code of package payouts is documented.
func TestAPIDocumentsEveryRoute(t *testing.T) {
	root := moduleRoot(t)
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	doc := read("docs/API.md")

	route := regexp.MustCompile(`v2\.(Get|Post|Put|Patch|Delete)\("([^"]*)"`)
	param := regexp.MustCompile(`:(\w+)`)
	routes := route.FindAllStringSubmatch(read("internal/api/routes.go"), -1)
	if len(routes) == 0 {
		t.Fatal("found no routes in internal/api/routes.go")
	}
	for _, m := range routes {
		row := "| " + strings.ToUpper(m[1]) + " /v2" + param.ReplaceAllString(m[2], "{$1}") + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/API.md has no endpoint row %q", row)
		}
	}

	code := regexp.MustCompile(`(?m)^\s+E\w+\s+= "([a-z-]+)"`)
	codes := code.FindAllStringSubmatch(read("payouts/error.go"), -1)
	if len(codes) == 0 {
		t.Fatal("found no error codes in payouts/error.go")
	}
	for _, m := range codes {
		if !strings.Contains(doc, "| `"+m[1]+"` |") {
			t.Errorf("docs/API.md's error table does not list %s", m[1])
		}
	}
}
