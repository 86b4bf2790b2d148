package handlers

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestApprovalPolicyHolds(t *testing.T) {
	on := ApprovalPolicy{On: true, Above: 1000_00}
	for _, tc := range []struct {
		name   string
		policy ApprovalPolicy
		amount payouts.Money
		want   bool
	}{
		{"equal to the threshold", on, 1000_00, false},
		{"a cent above", on, 1000_01, true},
		{"below", on, 1, false},
		{"off holds nothing", ApprovalPolicy{Above: 1000_00}, 1_000_000_00, false},
		{"a zero threshold holds everything", ApprovalPolicy{On: true}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.holds(tc.amount); got != tc.want {
				t.Errorf("holds(%s) = %v, want %v", tc.amount, got, tc.want)
			}
		})
	}
}

// TestApprovalRetryable: only "not now" answers leave an approval open; a refusal fails it.
func TestApprovalRetryable(t *testing.T) {
	for code, want := range map[string]bool{payouts.EResourceBusy: true, payouts.ETooManyRequests: true,
		payouts.EInsufficientFunds: false, payouts.EInvalidInput: false, payouts.EUserInfoMissing: false} {
		t.Run(code, func(t *testing.T) {
			if got := retryable(code); got != want {
				t.Errorf("retryable(%q) = %v, want %v", code, got, want)
			}
		})
	}
}
