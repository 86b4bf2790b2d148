package handlers_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/views/pages"
)

// TestEveryAuditedActionIsNamed: every action a handler writes to the audit log has its words
// on the audit page and is a choice of its filter, so none shows raw (bulk.confirm_repeats) or
// cannot be filtered by.
func TestEveryAuditedActionIsNamed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	audited := regexp.MustCompile(`h\.audit\(c, "([a-z_]+\.[a-z_]+)"|Action: +"([a-z_]+\.[a-z_]+)"`)
	named := pages.AuditActions()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range audited.FindAllStringSubmatch(string(src), -1) {
			action := m[1] + m[2]
			if !slices.Contains(named, action) {
				t.Errorf("%s audits %q, which the audit page does not name", f, action)
			}
		}
	}
}
