package payouts

import (
	"strconv"
	"strings"
)

// PayoutLinkStatus is where a payout link stands.
type PayoutLinkStatus string

const (
	LinkSent            PayoutLinkStatus = "sent"
	LinkClaimed         PayoutLinkStatus = "claimed"
	LinkDeliveryPending PayoutLinkStatus = "delivery_pending"
	LinkDeliveryFailed  PayoutLinkStatus = "delivery_failed"
	LinkDelivered       PayoutLinkStatus = "delivered"
	LinkCanceled        PayoutLinkStatus = "canceled"
)

var linkTransitions = map[PayoutLinkStatus][]PayoutLinkStatus{
	LinkSent:            {LinkDelivered, LinkDeliveryPending, LinkClaimed, LinkCanceled},
	LinkDeliveryPending: {LinkDelivered, LinkDeliveryFailed, LinkClaimed, LinkCanceled},
	LinkDeliveryFailed:  {LinkDeliveryPending, LinkClaimed, LinkCanceled},
	// A provider may report a message it took as undelivered later (an SMS status callback).
	LinkDelivered: {LinkClaimed, LinkCanceled, LinkDeliveryFailed},
}

// Valid reports whether s is a known payout link status.
func (s PayoutLinkStatus) Valid() bool {
	_, ok := linkTransitions[s]
	return ok || s == LinkClaimed || s == LinkCanceled
}

// CanBecome reports whether a link in status s may move to next.
func (s PayoutLinkStatus) CanBecome(next PayoutLinkStatus) bool {
	for _, t := range linkTransitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// Open reports whether a link in status s can still be claimed or cancelled.
func (s PayoutLinkStatus) Open() bool { return s != LinkClaimed && s != LinkCanceled }

// DeliveryMethod is how a payout link reaches its payee.
type DeliveryMethod string

const (
	DeliveryLink  DeliveryMethod = "link"
	DeliverySMS   DeliveryMethod = "sms"
	DeliveryEmail DeliveryMethod = "email"
)

// Payee is who a payout link is for.
type Payee struct {
	FirstName   string `json:"first_name,omitempty"`
	LastName    string `json:"last_name,omitempty"`
	Email       string `json:"email,omitempty"`
	CountryCode string `json:"country_code,omitempty"`
	PhoneNumber string `json:"phone_number,omitempty"`
}

// Delivery says how a payout link was sent.
type Delivery struct {
	Method      DeliveryMethod `json:"method"`
	Message     string         `json:"message,omitempty"`
	Email       string         `json:"email,omitempty"`
	CountryCode string         `json:"country_code,omitempty"`
	PhoneNumber string         `json:"phone_number,omitempty"`
}

// PayoutLink is money an app reserved for a payee, who claims it on a hosted page.
type PayoutLink struct {
	ID            string           `json:"id"`
	Created       Time             `json:"created"`
	Link          string           `json:"link"`
	Amount        Money            `json:"amount"`
	Status        PayoutLinkStatus `json:"status"`
	Payee         Payee            `json:"payee"`
	Delivery      Delivery         `json:"delivery"`
	TaxExempt     bool             `json:"tax_exempt"`
	ClaimedUserID *string          `json:"claimed_user_id,omitempty"`
	FlowID        *string          `json:"flow_id,omitempty"`
	TransferID    *string          `json:"transfer_id,omitempty"`
	Memo          string           `json:"memo"`
	Metadata      Metadata         `json:"metadata"`
	// UserID is ours: the user the link was issued to, if the app named one.
	UserID *string `json:"user_id,omitempty"`
	// PayoutFeeParty is ours: who pays the fee when the link is paid out.
	PayoutFeeParty FeeParty `json:"payout_fee_party,omitempty"`
	// ClaimedAt and ClaimedVia are ours: when the link was claimed, and the verified contact the
	// payee proved, such as "sms +1 5555550101" or "email ada@example.com".
	ClaimedAt  *Time  `json:"claimed_at,omitempty"`
	ClaimedVia string `json:"claimed_via,omitempty"`
}

// NamesPayee reports whether the link names its payee: a user, a phone or an email. Only that
// payee can claim it; a link that names nobody is claimed by whoever verifies a phone on it
// first, so its URL is as good as the money.
func (l *PayoutLink) NamesPayee() bool {
	return l.UserID != nil || l.Payee.namesContact()
}

func (p Payee) namesContact() bool { return p.Email != "" || p.PhoneNumber != "" }

// CreatePayoutLinkRequest is the body of POST /v2/payout-links.
type CreatePayoutLinkRequest struct {
	Amount                     int64     `json:"amount"`
	UserID                     string    `json:"user_id,omitempty"`
	Payee                      *Payee    `json:"payee,omitempty"`
	Delivery                   *Delivery `json:"delivery,omitempty"`
	ForceCollectComplianceInfo bool      `json:"force_collect_compliance_information,omitempty"`
	TaxExempt                  bool      `json:"tax_exempt,omitempty"`
	Metadata                   Metadata  `json:"metadata,omitempty"`
	Memo                       string    `json:"memo,omitempty"`
	IdempotencyKey             string    `json:"idempotency_key,omitempty"`
	PayoutFeeParty             FeeParty  `json:"payout_fee_party,omitempty"`
	AdditionalSteps            []Step    `json:"additional_steps,omitempty"`
}

// NamesPayee reports whether the link the request makes will name its payee (see
// PayoutLink.NamesPayee).
func (r *CreatePayoutLinkRequest) NamesPayee() bool {
	return r.UserID != "" || r.Payee != nil && r.Payee.namesContact()
}

// PayoutLinkFilter narrows GET /v2/payout-links.
type PayoutLinkFilter struct {
	Status PayoutLinkStatus
	Search string // ours: part of the payee's name, email or phone
	Amount Money  // ours: exactly this many cents; 0 is any amount
}

// CheckFilterAmount checks an exact amount filter: 0 is none, else 1 to MaxAmount cents. The
// service runs it on every filter, whoever sent it.
func CheckFilterAmount(m Money) error {
	if m < 0 || m > MaxAmount {
		return filterAmountProblem()
	}
	return nil
}

// ParseFilterAmount reads the amount= filter of a list: empty is none (0), anything else a
// number of cents. It does not judge the number it read (CheckFilterAmount does), except 0: read
// as 0 it would mean no filter at all.
func ParseFilterAmount(v string) (Money, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n == 0 {
		return 0, filterAmountProblem()
	}
	return Money(n), nil
}

func filterAmountProblem() error {
	return FieldError("amount", "must be a whole number of cents from 1 to "+strconv.FormatInt(int64(MaxAmount), 10))
}

// Normalize returns the payee without the spaces people type around values, and a phone number
// that reads as one (ParsePhone; the United States' when it comes without a code) split as the
// API stores it.
func (p Payee) Normalize() Payee {
	p.FirstName, p.LastName = strings.TrimSpace(p.FirstName), strings.TrimSpace(p.LastName)
	p.Email = strings.TrimSpace(p.Email)
	p.CountryCode, p.PhoneNumber = normalizePhone(p.CountryCode, p.PhoneNumber)
	return p
}

// DeliveryOf returns how the link is to be sent: by link unless the request says otherwise,
// with the message trimmed.
func (r CreatePayoutLinkRequest) DeliveryOf() Delivery {
	d := Delivery{Method: DeliveryLink}
	if r.Delivery != nil {
		d.Method, d.Message = r.Delivery.Method, strings.TrimSpace(r.Delivery.Message)
		if d.Method == "" {
			d.Method = DeliveryLink
		}
	}
	return d
}

// Validate checks everything a payout link request says on its own.
func (r CreatePayoutLinkRequest) Validate() error {
	p := Problems{}
	p.amount(r.Amount, false)
	p.id("user_id", r.UserID, false)
	if r.Payee != nil {
		p.payee(*r.Payee)
	}
	d := r.DeliveryOf()
	switch d.Method {
	case DeliveryLink, DeliverySMS, DeliveryEmail:
	default:
		p.Add("delivery.method", "must be link, sms or email")
	}
	p.maxLen("delivery.message", d.Message, 500)
	p.maxLen("memo", r.Memo, 500)
	if !r.PayoutFeeParty.Valid() {
		p.Add("payout_fee_party", "must be user or platform")
	}
	p.metadata(r.Metadata)
	p.steps("additional_steps", r.AdditionalSteps, false)
	return p.Err()
}

// payee checks a link's payee, under the field names "payee.*": the one rule of a new link's payee
// and of a corrected one.
func (p Problems) payee(payee Payee) {
	payee = payee.Normalize()
	p.email("payee.email", payee.Email, false)
	p.Phone("payee.", payee.CountryCode, payee.PhoneNumber, false)
	if len(payee.FirstName) > 100 || len(payee.LastName) > 100 {
		p.Add("payee.first_name", "names must be at most 100 characters")
	}
}

// CorrectPayoutLinkContactRequest is the body of POST /v2/payout-links/{id}/contact (our
// extension "messages"): the payee the link names from now on, names, email and phone, in
// place of the payee it named, whose contact proved wrong.
type CorrectPayoutLinkContactRequest struct {
	Payee Payee `json:"payee"`
}

// Validate checks the corrected payee as a new link's payee is checked.
func (r CorrectPayoutLinkContactRequest) Validate() error {
	p := Problems{}
	p.payee(r.Payee)
	return p.Err()
}
