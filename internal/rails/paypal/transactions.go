package paypal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// Transaction event codes (T-codes) of payouts in Transaction Search: the payment of a payout item
// (a mass payment), and the transactions that give one back, which name it as their
// paypal_reference_id. The batch's hold and its release (T1503, T1105) and its fee (T0104) are
// not payments to anyone and are left out.
const (
	eventPayout         = "T0001"
	eventPayoutReversal = "T1114"
	eventPayoutRefund   = "T1115"
)

// Transaction Search answers at most searchPageSize transactions a page, over at most
// searchWindow.
const (
	searchPageSize = 500
	searchWindow   = 31 * 24 * time.Hour
)

// searchAnswer is a page of Transaction Search's answer, as far as reconciliation reads it.
type searchAnswer struct {
	TransactionDetails []struct {
		TransactionInfo transactionInfo `json:"transaction_info"`
	} `json:"transaction_details"`
	Page       int `json:"page"`
	TotalPages int `json:"total_pages"`
}

type transactionInfo struct {
	TransactionID     string `json:"transaction_id"`
	PayPalReferenceID string `json:"paypal_reference_id"`
	EventCode         string `json:"transaction_event_code"`
	InitiationDate    string `json:"transaction_initiation_date"`
	TransactionStatus string `json:"transaction_status"`
	TransactionAmount struct {
		CurrencyCode string `json:"currency_code"`
		Value        string `json:"value"`
	} `json:"transaction_amount"`
}

// Items lists the payouts among the PayPal account's transactions created from from up to to,
// following Transaction Search's pages (service.RailItems). Transaction Search lists a payout by
// its transaction id alone: the items carry no transfer id, and reconciliation finds our payout
// by the transaction id its outcome reported (RailOutcome.Reference). It does not say whether a
// payment went to a PayPal or a Venmo wallet either, so the PayPal and the Venmo rail of one
// account list the same payments. A payout given back by a reversal or refund listed in the same
// span is failed.
func (r *Rail) Items(ctx context.Context, from, to time.Time) ([]service.RailItem, error) {
	if to.Sub(from) > searchWindow {
		return nil, fmt.Errorf("paypal: transaction search covers at most 31 days, not %s", to.Sub(from))
	}
	var items []service.RailItem
	givenBack := map[string]bool{}
	for page := 1; ; page++ {
		query := url.Values{"start_date": {from.UTC().Format(time.RFC3339)}, "end_date": {to.UTC().Format(time.RFC3339)},
			"fields": {"transaction_info"}, "page_size": {strconv.Itoa(searchPageSize)}, "page": {strconv.Itoa(page)}}
		var answer searchAnswer
		status, apiErr, err := r.client.call(ctx, http.MethodGet, "/v1/reporting/transactions?"+query.Encode(), "", nil, &answer)
		switch {
		case err != nil:
			return nil, err
		case status == http.StatusForbidden:
			return nil, fmt.Errorf("paypal: transaction search refused (enable Transaction Search on the REST app): %s", apiErr.describe())
		case status != http.StatusOK:
			return nil, fmt.Errorf("paypal: transaction search: %d %s", status, apiErr.describe())
		}
		for _, d := range answer.TransactionDetails {
			info := d.TransactionInfo
			switch info.EventCode {
			case eventPayout:
				it, ok, err := railItemOf(info)
				if err != nil {
					return nil, err
				}
				if ok {
					items = append(items, it)
				}
			case eventPayoutReversal, eventPayoutRefund:
				givenBack[info.PayPalReferenceID] = true
			}
		}
		if page >= answer.TotalPages {
			break
		}
	}
	for i := range items {
		if givenBack[items[i].ExternalID] {
			items[i].Status = payouts.TransferFailed
		}
	}
	return items, nil
}

// railItemOf is a payout's transaction as a rail item: its transaction id, its amount (PayPal
// lists money sent as negative) and its status in our words. A payment in another currency than
// USD is none of ours (payouts are paid in USD) and is left out.
func railItemOf(info transactionInfo) (service.RailItem, bool, error) {
	if info.TransactionAmount.CurrencyCode != "USD" {
		return service.RailItem{}, false, nil
	}
	amount, err := payouts.ParseDollars(info.TransactionAmount.Value)
	if err != nil {
		return service.RailItem{}, false, fmt.Errorf("paypal: transaction %s: amount %q: %w", info.TransactionID, info.TransactionAmount.Value, err)
	}
	created, err := searchTime(info.InitiationDate)
	if err != nil {
		return service.RailItem{}, false, fmt.Errorf("paypal: transaction %s: %w", info.TransactionID, err)
	}
	return service.RailItem{ExternalID: info.TransactionID, Amount: max(amount, -amount),
		Status: transactionStatus(info.TransactionStatus), Created: created}, true, nil
}

// transactionStatus is a transaction_status in our words: S (completed) is completed, D (denied)
// and V (reversed, the money back with the sender) failed, and P (pending) or a code not known
// here pending.
func transactionStatus(code string) payouts.TransferStatus {
	switch code {
	case "S":
		return payouts.TransferCompleted
	case "D", "V":
		return payouts.TransferFailed
	}
	return payouts.TransferPending
}

// searchTime reads Transaction Search's time, written with a numeric zone without a colon
// ("2026-03-02T12:00:09+0000"), or in RFC 3339.
func searchTime(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02T15:04:05-0700", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("transaction_initiation_date " + strconv.Quote(s) + " is not a time")
}
