package payouts

// SendPayoutRequest is the body of POST /v2/payouts/send-payout: the fields of a payout link's
// request. A known user with a default payout method is paid at once from the app's wallet;
// anyone else gets a payout link.
type SendPayoutRequest = CreatePayoutLinkRequest

// What a send-payout did.
const (
	SentPayout     = "payout"
	SentPayoutLink = "payout_link"
)

// SentPayoutResult is the answer of POST /v2/payouts/send-payout: the transfer when the user was
// paid, otherwise the payout link sent.
type SentPayoutResult struct {
	Type       string      `json:"type"`
	Transfer   *Transfer   `json:"transfer"`
	PayoutLink *PayoutLink `json:"payout_link"`
}
