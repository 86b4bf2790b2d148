package layout

import "testing"

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
