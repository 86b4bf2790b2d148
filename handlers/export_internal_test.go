package handlers

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

func TestCSVText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Jane Payee", "Jane Payee"},
		{"=SUM(A1:A9)", "'=SUM(A1:A9)"},
		{"+1 555 0100", "'+1 555 0100"},
		{"-2+3", "'-2+3"},
		{"-12.50", "-12.50"},
		{"+3", "+3"},
		{"-1.", "'-1."},
		{"-1e5", "'-1e5"},
		{"@cmd", "'@cmd"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"a=b", "a=b"},
		{`{"note": "=1"}`, `{"note": "=1"}`},
	} {
		if got := csvText(tc.in); got != tc.want {
			t.Errorf("csvText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTransferCSVRecord(t *testing.T) {
	t.Parallel()
	created := payouts.NewTime(time.Date(2026, 3, 2, 9, 30, 0, 0, time.FixedZone("EST", -5*3600)))
	user, link := "0657a28b-0000-4000-8000-000000000001", "0657a28b-0000-4000-8000-000000000002"
	zoe := payee{name: "Zoë García-López", email: "zoe@example.com"}
	for _, tc := range []struct {
		name  string
		t     payouts.Transfer
		payee payee
		want  map[string]string // by header; the columns not named are not this case's concern
	}{
		{"app to user", payouts.Transfer{Type: payouts.TransferBalance, Status: payouts.TransferCompleted, Amount: -250_00,
			UserID: &user, Metadata: payouts.Metadata("null"),
			Transactions: []payouts.Transaction{{Type: payouts.TransactionBalance, Amount: 250_00, Status: "posted", Direction: "out"}}}, zoe,
			map[string]string{"type": "App to user", "direction": "out", "amount": "250.00", "signed_amount": "-250.00", "fee": "0.00",
				"payee_name": "Zoë García-López", "payee_email": "zoe@example.com", "status": "Completed",
				"created": "2026-03-02T14:30:00Z", "completed": "2026-03-02T14:30:00Z", "metadata": "", "payout_method": ""}},
		{"user to app", payouts.Transfer{Type: payouts.TransferBalance, Status: payouts.TransferCompleted, Amount: 5_00,
			UserID: &user, Metadata: payouts.Metadata(`{"order":"A-17"}`)}, zoe,
			map[string]string{"type": "User to app", "direction": "in", "amount": "5.00", "metadata": `{"order":"A-17"}`}},
		{"deposit", payouts.Transfer{Type: payouts.TransferRefill, Status: payouts.TransferCompleted, Amount: 1_000_00}, payee{},
			map[string]string{"type": "Deposit", "direction": "in", "amount": "1000.00", "payee_name": "", "user_id": ""}},
		{"pending payout with its fee", payouts.Transfer{Type: payouts.TransferPayout, Status: payouts.TransferPending, Amount: 13_13,
			UserID: &user, ExternalData: payouts.ExternalData{Platform: payouts.PlatformPayPal},
			Transactions: []payouts.Transaction{{Type: payouts.TransactionPayout, Amount: 13_13}, {Type: payouts.TransactionFee, Amount: 25}}}, zoe,
			map[string]string{"type": "Payout to PayPal", "direction": "out", "amount": "13.13", "fee": "0.25",
				"payout_method": "PayPal", "status": "Pending", "completed": ""}},
		{"failed payout: its voided fee is no fee, its funding came back", payouts.Transfer{Type: payouts.TransferPayout,
			Status: payouts.TransferFailed, Amount: 13_13, UserID: &user, ExternalData: payouts.ExternalData{Platform: payouts.PlatformPayPal},
			Transactions: []payouts.Transaction{{Type: payouts.TransactionBalance, Amount: 13_13, Status: "posted", Direction: "out"},
				{Type: payouts.TransactionPayout, Amount: 13_13, Status: "voided"},
				{Type: payouts.TransactionFee, Amount: 25, Status: "voided", Direction: "out"},
				{Type: payouts.TransactionBalance, Amount: 13_13, Status: "posted", Direction: "in"}}}, zoe,
			map[string]string{"fee": "0.00", "status": "Failed", "signed_amount": "0.00", "money_in": "13.13", "money_out": "13.13"}},
		{"completed payout: when its history says", payouts.Transfer{Type: payouts.TransferPayout, Status: payouts.TransferCompleted,
			Amount: 13_13, ExternalData: payouts.ExternalData{Platform: payouts.PlatformVenmo},
			StatusHistory: []payouts.StatusChange{{Status: payouts.TransferPending, At: payouts.NewTime(time.Date(2026, 3, 2, 14, 30, 0, 0, time.UTC))},
				{Status: payouts.TransferCompleted, At: payouts.NewTime(time.Date(2026, 3, 3, 9, 15, 0, 0, time.UTC))}}}, zoe,
			map[string]string{"status": "Completed", "completed": "2026-03-03T09:15:00Z", "payout_method": "Venmo"}},
		{"completed payout without its history", payouts.Transfer{Type: payouts.TransferPayout, Status: payouts.TransferCompleted,
			Amount: 13_13, ExternalData: payouts.ExternalData{Platform: payouts.PlatformVenmo}}, zoe,
			map[string]string{"status": "Completed", "completed": ""}},
		{"canceled payout link", payouts.Transfer{Type: payouts.TransferBalance, Status: payouts.TransferFailed, Amount: 40_00,
			PayoutLinkID: &link, FailureReason: "payout link canceled"}, payee{},
			map[string]string{"type": "Payout link", "direction": "out", "amount": "40.00", "status": "Canceled",
				"payout_link_id": link, "completed": ""}},
		{"rejected payout", payouts.Transfer{Type: payouts.TransferPayout, Status: payouts.TransferFailed, Amount: 13_13,
			FailureReason: "=HYPERLINK(1)"}, payee{name: "@evil"},
			map[string]string{"status": "Failed", "failure_reason": "'=HYPERLINK(1)", "payee_name": "'@evil"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.t.Created = created
			row := transferCSVRecord(tc.t, tc.payee, true, payouts.Range{}, time.UTC)
			if len(row) != len(transferCSVHeader) {
				t.Fatalf("%d cells for %d columns", len(row), len(transferCSVHeader))
			}
			for i, col := range transferCSVHeader {
				if want, ok := tc.want[col]; ok && row[i] != want {
					t.Errorf("%s = %q, want %q", col, row[i], want)
				}
			}
			// The public API does not say which lines are the app's wallet's: no sum is guessed.
			if got := transferCSVRecord(tc.t, tc.payee, false, payouts.Range{}, time.UTC)[slices.Index(transferCSVHeader, "signed_amount")]; got != "" {
				t.Errorf("without the extension, signed_amount = %q, want empty", got)
			}
		})
	}
}

func TestPayeeBookAsksOncePerUser(t *testing.T) {
	t.Parallel()
	zoe, gone, broken := "zoe", "gone", "broken"
	asked := map[string]int{}
	book := newPayeeBook(func(_ context.Context, id string) (*payouts.User, error) {
		asked[id]++
		switch id {
		case gone:
			return nil, payouts.Errorf(payouts.ENotFound, "no such user")
		case broken:
			return nil, errors.New("connection refused")
		}
		return &payouts.User{FirstName: "Zoë", LastName: "García-López", Email: "zoe@example.com"}, nil
	})
	for _, tc := range []struct {
		name    string
		user    *string
		want    payee
		wantErr bool
	}{
		{"no user", nil, payee{}, false},
		{"a user", &zoe, payee{"Zoë García-López", "zoe@example.com"}, false},
		{"the same user again", &zoe, payee{"Zoë García-López", "zoe@example.com"}, false},
		{"a user the service no longer has", &gone, payee{}, false},
		{"again", &gone, payee{}, false},
		{"the service failing", &broken, payee{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := book.lookup(t.Context(), tc.user)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("lookup = %+v, %v; want %+v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	if asked[zoe] != 1 || asked[gone] != 1 {
		t.Errorf("asked the service %v: want once per user", asked)
	}
}
