package service

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
)

// AddPayoutMethod saves a way to pay the user. Saving the same account again updates it rather
// than adding a copy. The user's first method becomes the default.
func (s *Service) AddPayoutMethod(ctx context.Context, appID, userID string, req payouts.AddPayoutMethodRequest) (*payouts.PayoutMethod, error) {
	if req.Platform == payouts.PlatformBankTransfer {
		req.Platform = payouts.PlatformACH
	}
	identity, err := validatePayoutMethod(&req)
	if err != nil {
		return nil, err
	}
	rec := &PayoutMethodRecord{
		AppID: appID, UserID: userID,
		Fingerprint:   s.keyedHash("payout-method", appID, userID, string(req.Platform), identity),
		RoutingNumber: req.RoutingNumber,
		AccountType:   req.AccountType,
		PayoutMethod: payouts.PayoutMethod{
			ID: uuid.NewString(), Platform: req.Platform, Email: req.Email, PhoneNumber: req.PhoneNumber,
			Handle: req.Handle, CashTag: req.CashTag, Country: "US", Currency: "USD",
			Created: payouts.NewTime(s.now()),
		},
	}
	if req.AccountNumber != "" {
		rec.Mask = payouts.Last4(req.AccountNumber)
		rec.SealedAccount = s.seal([]byte(req.AccountNumber), "account:"+userID)
	}
	rec.Description = describeMethod(rec)
	err = s.store.InTx(ctx, func(q Queries) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		if err := q.SavePayoutMethod(ctx, rec); err != nil { // keeps the id of a method saved before
			return err
		}
		if req.IsDefault || user.DefaultPayoutMethod == nil {
			if err := q.SetDefaultPayoutMethod(ctx, appID, userID, rec.ID); err != nil {
				return err
			}
			rec.Default = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &rec.PayoutMethod, nil
}

// validatePayoutMethod checks the fields the platform needs and returns the value that
// identifies the account (for recognising it when saved again).
func validatePayoutMethod(req *payouts.AddPayoutMethodRequest) (string, error) {
	p := payouts.Problems{}
	req.Email = strings.TrimSpace(req.Email)
	req.PhoneNumber = strings.TrimSpace(req.PhoneNumber)
	req.Handle = strings.TrimPrefix(strings.TrimSpace(req.Handle), "@")
	req.CashTag = strings.TrimSpace(req.CashTag)
	req.RoutingNumber = strings.TrimSpace(req.RoutingNumber)
	req.AccountNumber = strings.TrimSpace(req.AccountNumber)
	bank := func() {
		switch {
		case req.RoutingNumber == "":
			p.Add("routing_number", "is required")
		case !payouts.ValidRoutingNumber(req.RoutingNumber):
			p.Add("routing_number", "is not a valid 9-digit ABA routing number")
		}
		switch {
		case req.AccountNumber == "":
			p.Add("account_number", "is required")
		case !payouts.ValidAccountNumber(req.AccountNumber):
			p.Add("account_number", "must be 4 to 17 digits")
		}
	}
	var identity string
	switch req.Platform {
	case payouts.PlatformPayPal:
		switch {
		case req.Email == "":
			p.Add("email", "is required for paypal")
		case !payouts.ValidEmail(req.Email):
			p.Add("email", "is not a valid email address")
		}
		identity = strings.ToLower(req.Email)
		req.PhoneNumber, req.Handle, req.CashTag, req.RoutingNumber, req.AccountNumber = "", "", "", "", ""
	case payouts.PlatformVenmo:
		switch {
		case req.PhoneNumber == "" && req.Handle == "":
			p.Add("phone_number", "give phone_number or handle for venmo")
		case req.PhoneNumber != "" && !payouts.ValidPhoneNumber(req.PhoneNumber):
			p.Add("phone_number", "must be 4 to 14 digits")
		case req.Handle != "" && !payouts.ValidHandle(req.Handle):
			p.Add("handle", "must be 5 to 30 letters, digits, - or _")
		}
		identity = req.PhoneNumber + "|" + strings.ToLower(req.Handle)
		req.Email, req.CashTag, req.RoutingNumber, req.AccountNumber = "", "", "", ""
	case payouts.PlatformCashApp:
		switch {
		case req.CashTag == "":
			p.Add("cash_tag", "is required for cash_app")
		case !payouts.ValidCashTag(req.CashTag):
			p.Add("cash_tag", "must look like $name")
		}
		bank()
		identity = strings.ToLower(req.CashTag)
		req.Email, req.PhoneNumber, req.Handle = "", "", ""
	case payouts.PlatformACH:
		bank()
		switch req.AccountType {
		case payouts.AccountChecking, payouts.AccountSavings:
		case "":
			p.Add("account_type", "is required for ach")
		default:
			p.Add("account_type", "must be checking or savings")
		}
		identity = req.RoutingNumber + "|" + req.AccountNumber
		req.Email, req.PhoneNumber, req.Handle, req.CashTag = "", "", "", ""
	case "":
		p.Add("platform", "is required")
	default:
		p.Add("platform", "must be paypal, venmo, cash_app or ach")
	}
	if req.Platform != payouts.PlatformACH {
		req.AccountType = ""
	}
	return identity, p.Err()
}

func describeMethod(m *PayoutMethodRecord) string {
	switch m.Platform {
	case payouts.PlatformPayPal:
		return "PayPal " + m.Email
	case payouts.PlatformVenmo:
		if m.Handle != "" {
			return "Venmo @" + m.Handle
		}
		return "Venmo " + m.PhoneNumber
	case payouts.PlatformCashApp:
		return "Cash App " + m.CashTag
	case payouts.PlatformACH:
		kind := "Checking"
		if m.AccountType == payouts.AccountSavings {
			kind = "Savings"
		}
		return kind + " ••••" + m.Mask
	}
	return string(m.Platform)
}

// ListPayoutMethods returns the user's saved methods, newest first.
func (s *Service) ListPayoutMethods(ctx context.Context, appID, userID string) ([]payouts.PayoutMethod, error) {
	if _, err := s.getUser(ctx, s.store, appID, userID); err != nil {
		return nil, err
	}
	recs, err := s.store.ListPayoutMethods(ctx, appID, userID)
	if err != nil {
		return nil, err
	}
	out := make([]payouts.PayoutMethod, len(recs))
	for i := range recs {
		out[i] = recs[i].PayoutMethod
	}
	return out, nil
}
