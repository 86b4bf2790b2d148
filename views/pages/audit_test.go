package pages

import "testing"

func TestAuditActionLabel(t *testing.T) {
	for _, tc := range []struct{ action, want string }{
		{"payout_link.create", "Created a payout link"},
		{"payout_link.cancel", "Canceled a payout link"},
		{"transfer.create", "Moved money"},
		{"transfer.reject", "Rejected a flagged payout"},
		{"transfers.export", "Exported transfers"},
		{"operator.role", "Changed an operator's role"},
		{"user.send_verification_token", "Sent a verification code"},
		{"webhook.disable", "Disabled a webhook endpoint"},
		{"app.deposit", "Added funds to the app"},
		{"approval.request", "Asked for approval of a payout"},
		{"approval.reject", "Rejected a payout waiting for approval"},
		{"payout_request.approve", "Approved a payout request"},
		// An action without a label yet still says what was recorded.
		{"refund.create", "refund.create"},
		{"", ""},
	} {
		t.Run(tc.action, func(t *testing.T) {
			if got := AuditActionLabel(tc.action); got != tc.want {
				t.Errorf("AuditActionLabel(%q) = %q, want %q", tc.action, got, tc.want)
			}
		})
	}
}
