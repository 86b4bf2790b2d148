package payoutd_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
)

// Outside sandbox mode the sandbox's identity check, which passes every SSN but its trigger, is
// never used: with no identity provider every check is refused and no payee becomes verified.
func TestIdentityCheckOutsideSandbox(t *testing.T) {
	tests := []struct {
		name         string
		sandboxOff   bool
		wantVerified bool
	}{
		{"sandbox mode passes the sandbox's check", false, true},
		{"production refuses a check no provider makes", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db"), HideSandboxInbox: tt.sandboxOff,
				EncryptionKey: bytes.Repeat([]byte{3}, payoutd.KeySize), WorkerInterval: -1})
			creds, err := srv.CreateApp(ctx, "Live")
			if err != nil {
				t.Fatal(err)
			}
			u, err := srv.Service().CreateUser(ctx, creds.AppID, payouts.CreateUserRequest{FirstName: "Ida", LastName: "Check",
				Email: "ida@example.com", CountryCode: "1", PhoneNumber: "4155550101"})
			if err != nil {
				t.Fatal(err)
			}
			err = srv.Service().VerifyIdentity(ctx, creds.AppID, u.ID, "1234", "1990-04-01")
			if tt.wantVerified != (err == nil) {
				t.Fatalf("VerifyIdentity: %v; want verified %v", err, tt.wantVerified)
			}
			if err != nil && payouts.ErrorCode(err) != payouts.EInvalidInput {
				t.Errorf("refused with %v, want an invalid-input error the form shows", err)
			}
			got, err := srv.Service().GetUser(ctx, creds.AppID, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Compliance.IDVerified != tt.wantVerified {
				t.Errorf("id verified %v, want %v", got.Compliance.IDVerified, tt.wantVerified)
			}
		})
	}
}
