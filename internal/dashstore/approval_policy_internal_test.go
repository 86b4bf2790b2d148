package dashstore

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestApprovalPolicyThreshold: one request of more than Above waits; equal goes through; off
// holds nothing.
func TestApprovalPolicyThreshold(t *testing.T) {
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
		{"off holds nothing", ApprovalPolicy{Above: 1000_00, PayeeLimit: 1}, 1_000_000_00, false},
		{"a zero threshold holds everything", ApprovalPolicy{On: true}, 1, true},
		{"a zero limit is no limit", ApprovalPolicy{On: true, Above: payouts.MaxAmount}, 1_000_000_00, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.policy.reasons([]Outflow{{Key: "k", Payee: "p", OperatorID: "o", Amount: tc.amount}}, nil, nil) != nil
			if got != tc.want {
				t.Errorf("%s held: %v, want %v", tc.amount, got, tc.want)
			}
		})
	}
}
