package service

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/disburse/disburse/payouts"
)

// An app's own details: the bank account it withdraws to and the business behind it. Secrets are
// sealed with the app's id as associated data, so a sealed value cannot be moved to another app.

// SetACHAccount saves the app's bank account, the account number sealed.
func (s *Service) SetACHAccount(ctx context.Context, appID, id string, req payouts.ACHAccountRequest) (*payouts.ACHAccount, error) {
	if id != appID {
		return nil, notFound("app")
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	err := s.updateApp(ctx, appID, id, func(a *AppRecord) {
		a.BankRouting, a.BankAccountType = req.RoutingNumber, req.AccountType
		a.BankLast4, a.BankSealed = payouts.Last4(req.AccountNumber), s.seal([]byte(req.AccountNumber), aadOf(SealedAppBank, a.ID))
	})
	if err != nil {
		return nil, err
	}
	return s.ACHAccount(ctx, appID, id)
}

// ACHAccount returns the app's bank account, its number shown by the last four digits only.
func (s *Service) ACHAccount(ctx context.Context, appID, id string) (*payouts.ACHAccount, error) {
	a, err := s.ownApp(ctx, appID, id)
	if err != nil {
		return nil, err
	}
	if a.BankSealed == nil {
		return nil, payouts.Errorf(payouts.ENotFound, "The app has no ACH account.")
	}
	name := "Checking account"
	if a.BankAccountType == payouts.AccountSavings {
		name = "Savings account"
	}
	return &payouts.ACHAccount{Mask: a.BankLast4, Name: name, RoutingNumber: a.BankRouting, AccountType: a.BankAccountType}, nil
}

// SetAppCompliance saves the business's details, sealed whole.
func (s *Service) SetAppCompliance(ctx context.Context, appID, id string, req payouts.BusinessCompliance) (*payouts.BusinessCompliance, error) {
	if id != appID {
		return nil, notFound("app")
	}
	ci := &req.CompanyInfo
	ci.EIN, ci.EINLast4 = strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(ci.EIN)), ""
	if err := req.Validate(); err != nil {
		return nil, err
	}
	form, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if err := s.updateApp(ctx, appID, id, func(a *AppRecord) { a.ComplianceSealed = s.seal(form, aadOf(SealedAppCompliance, a.ID)) }); err != nil {
		return nil, err
	}
	return s.AppCompliance(ctx, appID, id)
}

// AppCompliance returns the business's details with the EIN masked.
func (s *Service) AppCompliance(ctx context.Context, appID, id string) (*payouts.BusinessCompliance, error) {
	a, err := s.ownApp(ctx, appID, id)
	if err != nil {
		return nil, err
	}
	if a.ComplianceSealed == nil {
		return nil, payouts.Errorf(payouts.ENotFound, "The app has no compliance details.")
	}
	form, err := s.open(a.ComplianceSealed, aadOf(SealedAppCompliance, a.ID))
	if err != nil {
		return nil, err
	}
	var out payouts.BusinessCompliance
	if err := json.Unmarshal(form, &out); err != nil {
		return nil, err
	}
	ci := &out.CompanyInfo
	ci.EIN, ci.EINLast4 = payouts.MaskEIN(ci.EIN), payouts.Last4(ci.EIN)
	return &out, nil
}

// ownApp reads the app the request acts as; any other id is not found.
func (s *Service) ownApp(ctx context.Context, appID, id string) (*AppRecord, error) {
	if id != appID {
		return nil, notFound("app")
	}
	a, err := s.store.GetApp(ctx, appID)
	return a, orNotFound(err, "app")
}

// updateApp changes the app the request acts as in one transaction.
func (s *Service) updateApp(ctx context.Context, appID, id string, change func(a *AppRecord)) error {
	if id != appID {
		return notFound("app")
	}
	return s.inTx(ctx, func(q *Tx) error {
		a, err := q.GetApp(ctx, appID)
		if err != nil {
			return orNotFound(err, "app")
		}
		change(a)
		if err := q.UpdateApp(ctx, a); err != nil {
			return err
		}
		q.appUpdated(a)
		return nil
	})
}
