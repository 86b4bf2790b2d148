package payouts

import "time"

// TransactionType says what a ledger line of a transfer did.
type TransactionType string

const (
	TransactionBalance   TransactionType = "balance"
	TransactionRefill    TransactionType = "refill"
	TransactionPayout    TransactionType = "payout"
	TransactionPayment   TransactionType = "payment"
	TransactionFee       TransactionType = "fee"
	TransactionSurrogate TransactionType = "surrogate"
)

// Transaction is one ledger line of a transfer: money from one account to another.
type Transaction struct {
	ID              int64           `json:"id"`
	Amount          Money           `json:"amount"`
	Created         Time            `json:"created"`
	SourceName      string          `json:"source_name"`
	DestinationName string          `json:"destination_name"`
	Type            TransactionType `json:"type"`
	TransferID      string          `json:"transfer_id"`
	Metadata        Metadata        `json:"metadata"`
	// Status is ours: pending while reserved, posted, or voided when a reservation was released.
	Status string `json:"status,omitempty"`
	// UserID is ours: the user whose wallet the line touched, if any.
	UserID *string `json:"user_id,omitempty"`
}

// TransactionFilter narrows GET /v2/transactions. The creation and amount bounds are ours (see
// Range).
type TransactionFilter struct {
	UserID                 string
	CreatedFrom, CreatedTo time.Time
	AmountMin, AmountMax   Money
}

// Range returns the filter's creation and amount bounds.
func (f TransactionFilter) Range() Range {
	return Range{CreatedFrom: f.CreatedFrom, CreatedTo: f.CreatedTo, AmountMin: f.AmountMin, AmountMax: f.AmountMax}
}

// WithRange returns the filter with the bounds of r.
func (f TransactionFilter) WithRange(r Range) TransactionFilter {
	f.CreatedFrom, f.CreatedTo, f.AmountMin, f.AmountMax = r.CreatedFrom, r.CreatedTo, r.AmountMin, r.AmountMax
	return f
}
