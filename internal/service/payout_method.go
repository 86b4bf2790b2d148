package service

import (
	"context"
	"strings"

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
			ID: newID(), Platform: req.Platform, Email: req.Email, PhoneNumber: req.PhoneNumber,
			Handle: req.Handle, CashTag: req.CashTag, Country: "US", Currency: "USD",
			Created: payouts.NewTime(s.now()),
		},
	}
	if req.AccountNumber != "" {
		rec.Mask = payouts.Last4(req.AccountNumber)
		rec.SealedAccount = s.seal([]byte(req.AccountNumber), aadOf(SealedAccount, userID))
	}
	rec.Description = describeMethod(rec)
	err = s.inTx(ctx, func(q *Tx) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		if err := q.SavePayoutMethod(ctx, rec); err != nil { // keeps the id of a method saved before
			return err
		}
		q.payoutMethodSaved(rec)
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
	*req = req.Normalize()
	if err := req.Validate(); err != nil {
		return "", err
	}
	switch req.Platform {
	case payouts.PlatformPayPal:
		return strings.ToLower(req.Email), nil
	case payouts.PlatformVenmo:
		return req.PhoneNumber + "|" + strings.ToLower(req.Handle), nil
	case payouts.PlatformCashApp:
		return strings.ToLower(req.CashTag), nil
	}
	return req.RoutingNumber + "|" + req.AccountNumber, nil
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
