package payouts

// SendPayoutRequest is the body of POST /v2/payouts/send-payout: the fields of a payout link's
// request. A known user with a default payout method is paid at once from the app's wallet;
// anyone else gets a payout link. The answer is a payout link either way: one paid at once is
// claimed by its user as it is made, and its transfer_id is the payout.
type SendPayoutRequest = CreatePayoutLinkRequest
