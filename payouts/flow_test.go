package payouts

import "testing"

func TestStepLabel(t *testing.T) {
	tests := []struct {
		step            string
		payee, operator string
	}{
		{StepCompliance, "Tax information", "Tax form (W-9 or W-8BEN)"},
		{StepIDVerification, "Identity check", "Identity check"},
		{StepPayout, "Get paid", "Payout"},
		{StepRedirect, "Finish", "Redirect back to your site"},
		{"unknown", "unknown", "unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.step, func(t *testing.T) {
			if got := StepLabel(tc.step, ForPayee); got != tc.payee {
				t.Errorf("StepLabel(%q, ForPayee) = %q, want %q", tc.step, got, tc.payee)
			}
			if got := StepLabel(tc.step, ForOperator); got != tc.operator {
				t.Errorf("StepLabel(%q, ForOperator) = %q, want %q", tc.step, got, tc.operator)
			}
		})
	}
	for _, step := range StepNames {
		if StepLabel(step, ForPayee) == step || StepLabel(step, ForOperator) == step {
			t.Errorf("step %q has no label", step)
		}
	}
}
