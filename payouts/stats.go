package payouts

// AppStats is our extension for an operator's overview of an app: its wallet, what needs
// attention, and daily volumes.
type AppStats struct {
	Wallet Wallet `json:"wallet"`
	// Today is the volume of the current day in the zone asked for (UTC by default).
	Today DailyVolume `json:"today"`
	// Flagged counts transfers held for review; Failed counts payouts that failed in the window.
	Flagged int `json:"flagged"`
	Failed  int `json:"failed"`
	// Pending counts payouts on a rail now.
	Pending int `json:"pending"`
	// Days holds one entry per day of the window in that zone, oldest first, days without volume
	// included.
	Days []DailyVolume `json:"days"`
	// TaxYear is the current year in that zone; OweW9 counts the payees paid at or over its
	// 1099-NEC threshold with no W-9 on file.
	TaxYear int `json:"tax_year"`
	OweW9   int `json:"owe_w9"`
	// FailingWebhookEndpoints are the app's endpoints whose every recent delivery failed
	// (EveryDeliveryFailed).
	FailingWebhookEndpoints []WebhookEndpoint `json:"failing_webhook_endpoints"`
}

// DailyVolume sums one day's money movements that did not fail.
type DailyVolume struct {
	Date        string `json:"date"` // YYYY-MM-DD, in the zone asked for
	Payouts     Money  `json:"payouts"`
	PayoutCount int    `json:"payout_count"`
	Deposits    Money  `json:"deposits"`
	// ToUsers is money moved from the app to users' wallets (balance transfers and claimed links).
	ToUsers Money `json:"to_users"`
}

// StatusChange is one step of a transfer's history: our extension, for status timelines.
type StatusChange struct {
	Status TransferStatus `json:"status"`
	At     Time           `json:"at"`
	Reason string         `json:"reason,omitempty"`
}
