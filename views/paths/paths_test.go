package paths

import (
	"net/url"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestPaths(t *testing.T) {
	const id = "7b0e9f1c-0000-4000-8000-000000000001"
	tests := []struct {
		name, got, want string
	}{
		{"user", User(id), "/users/" + id},
		{"user action", UserVerificationToken(id), "/users/" + id + "/verification-token"},
		{"id escaped", User("a/b?c"), "/users/a%2Fb%3Fc"},
		{"new payout method", NewPayoutMethod(id, ""), "/users/" + id + "/payout-methods/new"},
		{"new payout method on a tab", NewPayoutMethod(id, payouts.PlatformACH), "/users/" + id + "/payout-methods/new?platform=ach"},
		{"compliance", Compliance(id, ""), "/users/" + id + "/compliance"},
		{"compliance form", Compliance(id, "w8ben"), "/users/" + id + "/compliance?form=w8ben"},
		{"all transfers", Transfers(payouts.TransferFilter{}), "/transfers"},
		{"transfers narrowed", Transfers(payouts.TransferFilter{UserID: id, Type: payouts.TransferPayout, Status: payouts.TransferFailed}),
			"/transfers?status=failed&type=payout&user=" + id},
		{"transactions of a user", Transactions(payouts.TransactionFilter{UserID: id}), "/transactions?user=" + id},
		{"transaction", Transaction(42), "/transactions/42"},
		{"new payout link", NewPayoutLink(""), "/payout-links/new"},
		{"new payout link for a user", NewPayoutLink(id), "/payout-links/new?user=" + id},
		{"cancel link", PayoutLinkCancel(id), "/payout-links/" + id + "/cancel"},
		{"flow progress", FlowProgress(id), "/flows/" + id + "/progress"},
		{"operator role", OperatorRole(id), "/operators/" + id + "/role"},
		{"audit", Audit(url.Values{"object_type": {"flow"}, "object_id": {""}}), "/audit?object_type=flow"},
		{"review", TransferReview(id), "/transfers/" + id + "/review"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
