package layout

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func TestOperatorRoleShown(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   Operator
		want string
	}{
		{"the first admin, named after the role", Operator{Name: "Admin", Role: "Admin"}, ""},
		{"a name in another case", Operator{Name: "admin ", Role: "Admin"}, ""},
		{"a person", Operator{Name: "Ada Lovelace", Role: "Manager"}, "Manager"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.op.RoleShown(); got != tc.want {
				t.Errorf("RoleShown() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestShellSendsTheCSRFToken: the shell sends the token of its props, not one from the context,
// with every htmx request (the body's hx-headers) and, once someone is signed in, with the
// sign-out form.
func TestShellSendsTheCSRFToken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        Props
		want     []string
		wantNone []string
	}{
		{"signed in", Props{Title: "Users", CSRF: "tok-123", Operator: &Operator{Name: "Ada", Role: "Admin"}},
			[]string{`hx-headers="{&#34;X-CSRF-Token&#34;:&#34;tok-123&#34;}"`, `name="_csrf" value="tok-123"`}, nil},
		{"signed out", Props{Title: "Sign in", CSRF: "tok-456"},
			[]string{`hx-headers="{&#34;X-CSRF-Token&#34;:&#34;tok-456&#34;}"`}, []string{`action="/logout"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := renderShell(t, tc.p)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the shell lacks %q", w)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(got, w) {
					t.Errorf("the shell has %q", w)
				}
			}
		})
	}
}

func renderShell(t *testing.T, p Props) string {
	t.Helper()
	var b strings.Builder
	if err := Shell(p, templ.NopComponent).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
