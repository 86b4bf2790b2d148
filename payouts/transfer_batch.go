package payouts

import "strconv"

// MaxBatchItems bounds the items of one transfer batch.
const MaxBatchItems = 1000

// BatchStatus is where a transfer batch stands: pending until every item has its outcome.
type BatchStatus string

const (
	BatchPending   BatchStatus = "pending"
	BatchCompleted BatchStatus = "completed"
)

// TransferBatchItem is one transfer of a batch, with its outcome once the batch has run: the
// transfer made, or why none was.
type TransferBatchItem struct {
	Amount         int64    `json:"amount"`
	UserID         string   `json:"user_id"`
	TaxExempt      bool     `json:"tax_exempt,omitempty"`
	AllowDebit     bool     `json:"allow_debit,omitempty"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
	TransferID     *string  `json:"transfer_id,omitempty"`
	Error          *string  `json:"error,omitempty"`
}

// TransferBatch is many transfers asked for at once and made in the background, each on its own.
type TransferBatch struct {
	ID       string              `json:"id"`
	Created  Time                `json:"created"`
	Status   BatchStatus         `json:"status"`
	Metadata Metadata            `json:"metadata,omitempty"`
	Items    []TransferBatchItem `json:"items,omitempty"`
}

// CreateTransferBatchRequest is the body of POST /v2/transfer-batches. Each item is a transfer:
// a negative amount from the app to the user; a positive one takes money from the user and needs
// allow_debit.
type CreateTransferBatchRequest struct {
	Items          []TransferBatchItem `json:"items"`
	IdempotencyKey string              `json:"idempotency_key,omitempty"`
	Metadata       Metadata            `json:"metadata,omitempty"`
}

// Validate checks the batch and every item, naming an item's field as items[i].field.
func (r CreateTransferBatchRequest) Validate() error {
	p := Problems{}
	switch {
	case len(r.Items) == 0:
		p.Add("items", "must hold at least one item")
	case len(r.Items) > MaxBatchItems:
		p.Add("items", "must hold at most 1000 items")
	}
	p.key(r.IdempotencyKey)
	p.metadata(r.Metadata)
	keys := make(map[string]bool, len(r.Items))
	for i, it := range r.Items {
		if len(p) >= 20 { // enough to act on; a million-line answer helps no one
			break
		}
		item := Problems{}
		item.id("user_id", it.UserID, true)
		item.amount(it.Amount, true)
		if it.Amount > 0 && !it.AllowDebit {
			item.Add("amount", "takes money from the user: set allow_debit")
		}
		item.key(it.IdempotencyKey)
		if it.IdempotencyKey != "" && keys[it.IdempotencyKey] {
			item.Add("idempotency_key", "is used by an earlier item")
		}
		keys[it.IdempotencyKey] = true
		item.metadata(it.Metadata)
		for f, problem := range item {
			p.Add("items["+strconv.Itoa(i)+"]."+f, problem)
		}
	}
	return p.Err()
}
