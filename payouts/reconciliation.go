package payouts

import "time"

// DayLayout is how a reconciliation names its day (UTC).
const DayLayout = "2006-01-02"

// How one of our payouts and the provider's item for it differ.
const (
	DiffOursOnly      = "ours_only"      // a payout we sent that the provider has no item for
	DiffTheirsOnly    = "theirs_only"    // an item of the provider no payout of ours names
	DiffAmountDiffers = "amount_differs" // both, with different amounts
	DiffStatusDiffers = "status_differs" // both, same amount, different statuses
)

// ReconcileRequest names the rail and the day of GET /v2/reconciliation, our extension.
type ReconcileRequest struct {
	Platform Platform
	Day      string // YYYY-MM-DD, UTC
}

// Validate checks the platform and the day.
func (r ReconcileRequest) Validate() error {
	p := Problems{}
	if !r.Platform.Valid() {
		p.Add("platform", "must be one of paypal, venmo, cash_app, ach")
	}
	if _, err := time.Parse(DayLayout, r.Day); err != nil {
		p.Add("day", "must be a date like 2026-11-24")
	}
	return p.Err()
}

// Start is the first instant of the request's day; Validate first.
func (r ReconcileRequest) Start() time.Time {
	d, _ := time.Parse(DayLayout, r.Day)
	return d
}

// Reconciliation is our payouts of one rail and day matched against the provider's items.
type Reconciliation struct {
	Platform    Platform                   `json:"platform"`
	Day         string                     `json:"day"`
	Matched     int                        `json:"matched"`
	Differences []ReconciliationDifference `json:"differences"`
}

// ReconciliationDifference is one payout or item that does not match. Ours and theirs are
// empty on the side that has none.
type ReconciliationDifference struct {
	Kind        string         `json:"kind"`
	TransferID  string         `json:"transfer_id,omitempty"`
	ExternalID  string         `json:"external_id,omitempty"`
	OurAmount   Money          `json:"our_amount,omitempty"`
	TheirAmount Money          `json:"their_amount,omitempty"`
	OurStatus   TransferStatus `json:"our_status,omitempty"`
	TheirStatus TransferStatus `json:"their_status,omitempty"`
}
