package handlers

import "testing"

func TestCSVText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Jane Payee", "Jane Payee"},
		{"=SUM(A1:A9)", "'=SUM(A1:A9)"},
		{"+1 555 0100", "'+1 555 0100"},
		{"-2+3", "'-2+3"},
		{"@cmd", "'@cmd"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"a=b", "a=b"},
		{`{"note": "=1"}`, `{"note": "=1"}`},
	} {
		if got := csvText(tc.in); got != tc.want {
			t.Errorf("csvText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
