package payouts

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

// Valid reports whether t is a type a ledger line can have.
func (t TransactionType) Valid() bool {
	switch t {
	case TransactionBalance, TransactionRefill, TransactionPayout, TransactionPayment, TransactionFee, TransactionSurrogate:
		return true
	}
	return false
}

// The statuses of a ledger line (Transaction.Status, ours).
const (
	TransactionPending = "pending"
	TransactionPosted  = "posted"
	TransactionVoided  = "voided"
)

// ValidTransactionStatus reports whether s is a status a ledger line can have.
func ValidTransactionStatus(s string) bool {
	return s == TransactionPending || s == TransactionPosted || s == TransactionVoided
}

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
	// Direction is ours: "in" when the line credits the app's wallet, "out" when it debits it,
	// absent when it is between other accounts. A line counts in the summaries' money in or
	// out by it, once posted.
	Direction string `json:"direction,omitempty"`
	// Posted is ours: when the line was posted, absent while pending or once voided. A range's
	// money is what lines posted in it moved (the summaries', the statement's definition).
	Posted *Time `json:"posted,omitempty"`
}

// TransactionFilter narrows GET /v2/transactions. The type, status, creation and amount
// filters are ours (Range).
type TransactionFilter struct {
	UserID string
	Type   TransactionType
	Status string
	Range
}
