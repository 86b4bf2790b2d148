package handlers

import (
	"errors"
	"maps"
	"testing"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// TestFormFailed puts the service's answer on the form by its code and fields, whatever its
// message says.
func TestFormFailed(t *testing.T) {
	t.Parallel()
	several := payouts.Problems{"amount": "must be greater than zero", "memo": "must be at most 500 characters"}
	tests := []struct {
		name    string
		err     error
		failed  bool
		errors  map[string]string
		message string
	}{
		{"one field", payouts.FieldError("amount", "must be greater than zero"), true,
			map[string]string{"amount": "must be greater than zero"}, ""},
		{"several fields", several.Err(), true, map[string]string(several), "Some fields need attention."},
		{"several fields, any message", &payouts.Error{Code: payouts.EInvalidInput, Message: "whatever", Fields: several}, true,
			map[string]string(several), "Some fields need attention."},
		{"no field", payouts.Errorf(payouts.EInsufficientFunds, "The wallet holds $1.00."), true,
			map[string]string{}, "The wallet holds $1.00."},
		{"conflict", payouts.Errorf(payouts.EEmailExists, "Taken."), true, map[string]string{}, "Taken."},
		{"not found", payouts.Errorf(payouts.ENotFound, "No user."), false, nil, ""},
		{"service down", payouts.Errorf(payouts.EInternal, "Internal error."), false, nil, ""},
		{"refused credentials", payouts.Errorf(payouts.EUnauthorized, "No."), false, nil, ""},
		{"bug", errors.New("nil map"), false, nil, ""},
		{"no error", nil, false, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f components.Form
			if got := formFailed(tc.err, &f); got != tc.failed {
				t.Fatalf("formFailed = %v, want %v", got, tc.failed)
			}
			if !maps.Equal(f.Errors, tc.errors) || f.Message != tc.message {
				t.Errorf("form errors %v, message %q; want %v, %q", f.Errors, f.Message, tc.errors, tc.message)
			}
		})
	}
}
