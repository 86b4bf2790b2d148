package cli_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/cli"
)

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"usage error", cli.UsageError{Err: errors.New("bad flag")}, 2},
		{"wrapped usage error", fmt.Errorf("parse: %w", cli.UsageError{Err: errors.New("bad flag")}), 2},
		{"other error", errors.New("database down"), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cli.ExitCode(tt.err); got != tt.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	env := cli.Env(func(name string) string { return map[string]string{"SET": "from env"}[name] })
	for _, tt := range []struct{ name, def, want string }{
		{"SET", "default", "from env"},
		{"UNSET", "default", "default"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := env(tt.name, tt.def); got != tt.want {
				t.Errorf("env(%q, %q) = %q, want %q", tt.name, tt.def, got, tt.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"a", []string{"a"}},
		{" a , b ,,c ", []string{"a", "b", "c"}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := cli.List(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("List(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHostPort(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{":8080", true},
		{"[::1]:9090", true},
		{"localhost", false},
		{"", false},
		{"http://x:1", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if err := cli.HostPort(tc.addr); (err == nil) != tc.ok {
				t.Errorf("HostPort(%q) = %v, want ok %v", tc.addr, err, tc.ok)
			}
		})
	}
}
