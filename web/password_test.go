package web

import (
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

func TestPasswordHash(t *testing.T) {
	p := PasswordParams{Memory: 1024, Time: 2, Threads: 1}
	hash, err := HashPassword("correct horse battery", p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=1024,t=2,p=1$") {
		t.Fatalf("hash %q is not a PHC argon2id string with its parameters", hash)
	}
	again, _ := HashPassword("correct horse battery", p)
	if again == hash {
		t.Fatal("two hashes of one password are equal: no random salt")
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{
		{"correct horse battery", true},
		{"correct horse battery ", false},
		{"", false},
	} {
		ok, err := CheckPassword(tc.password, hash)
		if err != nil || ok != tc.want {
			t.Errorf("CheckPassword(%q) = %v, %v; want %v", tc.password, ok, err, tc.want)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1024,t=2,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=0,t=2,p=1$c2FsdA$a2V5",
		"$argon2id$v=18$m=1024,t=2,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=1024,t=2,p=1$!!$a2V5"} {
		if _, err := CheckPassword("x", bad); err == nil {
			t.Errorf("CheckPassword against %q: no error", bad)
		}
	}
}

func TestPasswordProblem(t *testing.T) {
	for _, tc := range []struct {
		password string
		ok       bool
	}{
		{"short", false},
		{"twelve chars", true},
		{strings.Repeat("x", MaxPasswordLen+1), false},
		{RandomPassword(), true},
	} {
		if got := PasswordProblem(tc.password) == ""; got != tc.ok {
			t.Errorf("PasswordProblem(%q) ok = %v, want %v", tc.password, got, tc.ok)
		}
	}
}

func TestCan(t *testing.T) {
	for _, tc := range []struct {
		role string
		perm Permission
		want bool
	}{
		{"admin", PermOperatorsManage, true},
		{"operations", PermMoneyMove, true},
		{"operations", PermOperatorsManage, false},
		{"support", PermUsersRead, true},
		{"support", PermLinksCancel, true},
		{"support", PermMoneyMove, false},
		{"support", PermUsersWrite, false},
		{"manager", PermExport, true},
		{"manager", PermAuditRead, true},
		{"manager", PermMoneyMove, false},
		{"nobody", PermSignedIn, false},
	} {
		if got := Can(roleOf(tc.role), tc.perm); got != tc.want {
			t.Errorf("Can(%s, %s) = %v, want %v", tc.role, tc.perm, got, tc.want)
		}
	}
}

func roleOf(s string) dashstore.Role { return dashstore.Role(s) }
