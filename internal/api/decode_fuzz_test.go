package api

import (
	"errors"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// FuzzDecodeJSON: any request body decodes or is refused with invalid-input (never a panic,
// never another kind of error, which would answer 500), into each kind of request.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"amount": 1000, "user_id": "u"}`, `{"amount": "10"}`, `{"amount": 1.5}`, `[]`, `{`, ``, `{} {}`,
		`{"metadata": {"a": "b"}}`, `{"payee": {"email": 1}}`, `{"steps": [{"name": "x"}]}`, "\xff",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		targets := []func() any{
			func() any { return &payouts.CreateUserRequest{} },
			func() any { return &payouts.CreateTransferRequest{} },
			func() any { return &payouts.CreatePayoutLinkRequest{} },
			func() any { return &payouts.CreateFlowRequest{} },
			func() any { return &payouts.DepositRequest{} },
		}
		err := decodeJSON(body, targets[int(kind)%len(targets)]())
		if err == nil {
			return
		}
		var e *payouts.Error
		if !errors.As(err, &e) || e.Code != payouts.EInvalidInput || e.Message == "" {
			t.Fatalf("decodeJSON(%q): %#v, want an invalid-input error with a message", body, err)
		}
	})
}
