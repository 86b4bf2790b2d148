package handlers

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestApprovalRetryable: only "not now" answers leave an approval open; a refusal fails it.
func TestApprovalRetryable(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{payouts.EResourceBusy: true, payouts.ETooManyRequests: true,
		payouts.EInsufficientFunds: false, payouts.EInvalidInput: false, payouts.EUserInfoMissing: false} {
		t.Run(code, func(t *testing.T) {
			if got := retryable(code); got != want {
				t.Errorf("retryable(%q) = %v, want %v", code, got, want)
			}
		})
	}
}
