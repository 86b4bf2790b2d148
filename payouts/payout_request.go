package payouts

// PayoutRequestStatus is where a payout request stands: created, then approved (the money went
// out, or a payout link did) or rejected, by an operator.
type PayoutRequestStatus string

const (
	RequestCreated  PayoutRequestStatus = "created"
	RequestApproved PayoutRequestStatus = "approved"
	RequestRejected PayoutRequestStatus = "rejected"
)

// Valid reports whether s is a known payout request status.
func (s PayoutRequestStatus) Valid() bool {
	return s == RequestCreated || s == RequestApproved || s == RequestRejected
}

// PayoutRequest is a payout someone asked for, waiting for an operator's approval.
type PayoutRequest struct {
	ID         string              `json:"id"`
	Created    Time                `json:"created"`
	Amount     Money               `json:"amount"`
	Status     PayoutRequestStatus `json:"status"`
	Payee      Payee               `json:"payee"`
	PayoutLink *PayoutLink         `json:"payout-link,omitempty"`
	User       *User               `json:"user,omitempty"`
	Metadata   Metadata            `json:"metadata"`
	Memo       string              `json:"memo"`
	// Ours: the payout made on approval, and why a request was rejected.
	TransferID   *string `json:"transfer_id,omitempty"`
	RejectReason string  `json:"reject_reason,omitempty"`
}

// CreatePayoutRequestRequest is the body of POST /v2/payout-requests: a user or a payee.
type CreatePayoutRequestRequest struct {
	Amount   int64    `json:"amount"`
	UserID   string   `json:"user_id,omitempty"`
	Payee    *Payee   `json:"payee,omitempty"`
	Metadata Metadata `json:"metadata,omitempty"`
	Memo     string   `json:"memo,omitempty"`
}

// Validate checks the request; the payee's contact details are checked as a payout link's.
func (r CreatePayoutRequestRequest) Validate() error {
	p := Problems{}
	p.amount(r.Amount, false)
	p.id("user_id", r.UserID, false)
	if r.UserID == "" && r.Payee == nil {
		p.Add("user_id", "give user_id or payee")
	}
	if len(r.Memo) > 500 {
		p.Add("memo", "must be at most 500 characters")
	}
	p.metadata(r.Metadata)
	return p.Err()
}

// PayoutRequestFilter narrows GET /v2/payout-requests and GET /v2/payout-requests/count.
type PayoutRequestFilter struct {
	Status PayoutRequestStatus
	// Order is our extension order=: OrderNewest (the default, as every list) or OrderOldest,
	// for a queue worked from its head. The list only; a count has no order.
	Order string
}

// The orders of a payout request list. Oldest first, starting_after names the page of newer
// requests and ending_before that of older ones: cursors follow the list's order.
const (
	OrderNewest = "newest"
	OrderOldest = "oldest"
)

// Validate checks the filter's status and order.
func (f PayoutRequestFilter) Validate() error {
	p := Problems{}
	if f.Status != "" && !f.Status.Valid() {
		p.Add("status", "must be created, approved or rejected")
	}
	if f.Order != "" && f.Order != OrderNewest && f.Order != OrderOldest {
		p.Add("order", "must be newest or oldest")
	}
	return p.Err()
}

// PayoutRequestCount is the answer of GET /v2/payout-requests/count, our extension: how many
// payout requests the filter matches, so a queue can say its length without listing it.
type PayoutRequestCount struct {
	Count int64 `json:"count"`
}

// Review actions on a payout request.
const (
	ReviewApprove = "approve"
	// ReviewReject is shared with transfers' review.
)

// ReviewPayoutRequestRequest is the body of POST /v2/payout-requests/{id}/review, our extension:
// an operator approves a request (paying the user, or sending a payout link) or rejects it.
type ReviewPayoutRequestRequest struct {
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
}

// Validate checks the request.
func (r ReviewPayoutRequestRequest) Validate() error {
	p := Problems{}
	if r.Action != ReviewApprove && r.Action != ReviewReject {
		p.Add("action", "must be approve or reject")
	}
	if len(r.Reason) > 500 {
		p.Add("reason", "must be at most 500 characters")
	}
	return p.Err()
}
