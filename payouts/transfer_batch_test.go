package payouts_test

import (
	"errors"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// fieldsOf returns the fields an invalid-input error names, or nil for no error.
func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *payouts.Error
	if !errors.As(err, &e) || e.Code != payouts.EInvalidInput {
		t.Fatalf("err = %v, want an invalid-input *payouts.Error", err)
	}
	return e.Fields
}

func TestCreateTransferBatchRequestValidate(t *testing.T) {
	const user = "6f1c3a52-3f0b-4c1e-9d57-2b8f0c6a9e11"
	const key = "11111111-1111-4111-8111-111111111111"
	item := func(amount int64, debit bool) payouts.TransferBatchItem {
		return payouts.TransferBatchItem{UserID: user, Amount: amount, AllowDebit: debit}
	}
	many := make([]payouts.TransferBatchItem, payouts.MaxBatchItems+1)
	for i := range many {
		many[i] = item(-1, false)
	}
	tests := []struct {
		name  string
		req   payouts.CreateTransferBatchRequest
		field string // "" for valid
	}{
		{"one credit", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(-5, false)}}, ""},
		{"a debit allowed", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(5, true)}}, ""},
		{"1,000 items", payouts.CreateTransferBatchRequest{Items: many[:payouts.MaxBatchItems]}, ""},
		{"no items", payouts.CreateTransferBatchRequest{}, "items"},
		{"1,001 items", payouts.CreateTransferBatchRequest{Items: many}, "items"},
		{"debit not allowed", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(-1, false), item(5, false)}}, "items[1].amount"},
		{"zero", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(0, false)}}, "items[0].amount"},
		{"over the maximum", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(-int64(payouts.MaxAmount)-1, false)}}, "items[0].amount"},
		{"no user", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{{Amount: -1}}}, "items[0].user_id"},
		{"item key not a UUID", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{{UserID: user, Amount: -1, IdempotencyKey: "k"}}}, "items[0].idempotency_key"},
		{"item key twice", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{
			{UserID: user, Amount: -1, IdempotencyKey: key}, {UserID: user, Amount: -2, IdempotencyKey: key}}}, "items[1].idempotency_key"},
		{"batch key not a UUID", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(-1, false)}, IdempotencyKey: "k"}, "idempotency_key"},
		{"metadata a number", payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{item(-1, false)}, Metadata: payouts.Metadata("5")}, "metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := fieldsOf(t, tt.req.Validate())
			switch {
			case tt.field == "" && fields != nil:
				t.Errorf("valid request refused: %v", fields)
			case tt.field != "" && fields[tt.field] == "":
				t.Errorf("fields %v do not name %q", fields, tt.field)
			}
		})
	}
}
