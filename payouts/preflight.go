package payouts

import (
	"slices"
	"strconv"
)

// Codes of the problems a preflight names: each is one rule a real request enforces. They are
// stable; the message beside each is for people.
const (
	// PInvalidInput is a field the request itself gets wrong (Field names it); the real request
	// answers 400 invalid-input.
	PInvalidInput = "invalid-input"
	// PUserNotFound: no such user in the app (or one deleted); the real request answers 404.
	PUserNotFound = "user-not-found"
	// PTaxFormMissing: the user was paid past the 1099 threshold this year without a W-9 or
	// W-8BEN on file, or this request would take them past it with an earlier one of the batch;
	// the real request answers 422 user-info-missing.
	PTaxFormMissing = "tax-form-missing"
	// PPayoutMethodMissing: the user has no saved method the request can pay to; the real
	// request answers 422 user-info-missing (or 400 naming account_id).
	PPayoutMethodMissing = "payout-method-missing"
	// PInsufficientFunds: the wallet that pays (the app's when funded or for a fee the platform
	// pays, else the user's) holds less than the request moves; the real request answers 422
	// transaction-insufficient-funds.
	PInsufficientFunds = "insufficient-funds"
)

// Codes of the notices a preflight gives: what will happen that is not a refusal.
const (
	// NHeldForReview: the payout will be made but held for review (the user is flagged, or the
	// screener holds it) until someone releases it.
	NHeldForReview = "held-for-review"
)

// MaxPreflightItems bounds the items of one batch preflight, as MaxBatchItems does a batch.
const MaxPreflightItems = MaxBatchItems

// Problem is one rule a request breaks: a stable code, a message for people and, when one field
// of the request is at fault, its name.
type Problem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// Preflight is the answer of a dry run: OK when the real request would be made (perhaps held for
// review, which Notices say), else every problem that refuses it.
type Preflight struct {
	OK       bool      `json:"ok"`
	Problems []Problem `json:"problems"`
	Notices  []Problem `json:"notices"`
}

// Has reports whether the preflight names a problem of code.
func (p Preflight) Has(code string) bool {
	return slices.ContainsFunc(p.Problems, func(pr Problem) bool { return pr.Code == code })
}

// PreflightItem is one request of a batch preflight: a payout, a balance transfer between the
// app and a user (as POST /v2/transfers takes it), a payout link (as POST /v2/payout-links takes
// it: its issue, and what its claim would meet when it is to a user), or the approval of a payout
// request, by id (what POST /v2/payout-requests/{id}/review would send). Exactly one is set.
type PreflightItem struct {
	Payout        *CreatePayoutRequest     `json:"payout,omitempty"`
	Transfer      *CreateTransferRequest   `json:"transfer,omitempty"`
	PayoutLink    *CreatePayoutLinkRequest `json:"payout_link,omitempty"`
	PayoutRequest string                   `json:"payout_request,omitempty"`
}

// set counts the requests the item names.
func (it PreflightItem) set() int {
	n := 0
	for _, set := range []bool{it.Payout != nil, it.Transfer != nil, it.PayoutLink != nil, it.PayoutRequest != ""} {
		if set {
			n++
		}
	}
	return n
}

// PreflightBatchRequest is the body of POST /v2/payouts/preflight-batch: requests checked in
// order, each as if those before it that pass had been made (their money spent, their payments
// counted towards the 1099 threshold).
type PreflightBatchRequest struct {
	Items []PreflightItem `json:"items"`
}

// Validate checks the batch's size and that each item names one request; the requests' own
// fields are the items' problems, not the batch's.
func (r PreflightBatchRequest) Validate() error {
	p := Problems{}
	switch {
	case len(r.Items) == 0:
		p.Add("items", "must hold at least one item")
	case len(r.Items) > MaxPreflightItems:
		p.Add("items", "must hold at most "+strconv.Itoa(MaxPreflightItems)+" items")
	}
	for i, it := range r.Items {
		if it.set() != 1 {
			p.Add("items["+strconv.Itoa(i)+"]", "must hold one of payout, transfer, payout_link or payout_request")
		}
	}
	return p.Err()
}

// PreflightBatch is the answer of a batch preflight: one preflight per item, in order; OK when
// every item's is.
type PreflightBatch struct {
	OK    bool        `json:"ok"`
	Items []Preflight `json:"items"`
}
