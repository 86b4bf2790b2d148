package service

import (
	"context"
	"slices"

	"github.com/disburse/disburse/payouts"
)

// AppWithdraw pays money out of the app's wallet to its ACH account: a payout of the app's own,
// with no user. Like a user's payout it is two-phase: the amount is reserved on the ledger and
// the payout written submitting in one transaction; the rail is called after it, by the same
// submission steps as payouts (submission.go), and the reservation is posted when the rail
// settles or released when it fails.
func (s *Service) AppWithdraw(ctx context.Context, appID, id string, req payouts.WithdrawRequest) (*payouts.Transfer, error) {
	if id != appID {
		return nil, notFound("app")
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	tid, replayed, err := s.idempotent(ctx, appID, "withdraw", req.IdempotencyKey, req, false, func(q *Tx) (string, error) {
		method, err := s.appBankMethod(ctx, q, appID)
		if err != nil {
			return "", err
		}
		b, app, err := s.appBook(ctx, q, appID)
		if err != nil {
			return "", err
		}
		clearing, err := b.clearing(ctx, method.Platform)
		if err != nil {
			return "", err
		}
		t := s.newTransfer(s.transferIDs.New(appID), appID, payouts.TransferPayout, payouts.Money(req.Amount), req.Metadata)
		t.ExternalData = payouts.ExternalData{AccountID: method.ID, Platform: method.Platform}
		t.IdempotencyKey = req.IdempotencyKey
		t.Status, t.RailState, t.SettleAt = payouts.TransferPending, RailSubmitting, s.now()
		s.claimForRequest(t)
		postings, err := b.move(ctx, t.ID, []line{{from: app, to: clearing, amount: t.Amount, typ: payouts.TransactionPayout, pending: true}}, nil)
		if err != nil {
			return "", err
		}
		q.plan.Transfer = t
		q.transferCreated(t)
		q.transferWritten(t, postings)
		return t.ID, nil
	})
	if err != nil {
		return nil, err
	}
	if !replayed {
		s.submitClaimed(ctx, appID, tid)
	}
	return s.GetTransfer(ctx, appID, tid)
}

// appBankMethod is the app's ACH account as the payout method a rail is handed. Its id is the
// app's: an app has one bank account.
func (s *Service) appBankMethod(ctx context.Context, q Reads, appID string) (*PayoutMethodRecord, error) {
	a, err := q.GetApp(ctx, appID)
	if err != nil {
		return nil, orNotFound(err, "app")
	}
	if a.BankSealed == nil {
		return nil, payouts.Errorf(payouts.EUserInfoMissing, "Save the app's ACH account before withdrawing.")
	}
	return &PayoutMethodRecord{AppID: appID, RoutingNumber: a.BankRouting, AccountType: a.BankAccountType,
		SealedAccount: a.BankSealed, PayoutMethod: payouts.PayoutMethod{ID: appID, Platform: payouts.PlatformACH,
			Mask: a.BankLast4, Description: "App bank account"}}, nil
}

// railMethod is where a payout goes: the user's saved method, or for an app's withdrawal (no
// user) the app's ACH account.
func (s *Service) railMethod(ctx context.Context, q Reads, t *TransferRecord) (*PayoutMethodRecord, error) {
	methods, err := usersMethods(ctx, q, []*TransferRecord{t})
	if err != nil {
		return nil, err
	}
	return s.methodOf(ctx, q, t, methods)
}

// usersMethods reads the saved methods of the users ts pay, each app's in one query.
func usersMethods(ctx context.Context, q Reads, ts []*TransferRecord) ([]PayoutMethodRecord, error) {
	users := map[string][]string{} // by app
	for _, t := range ts {
		if t.UserID != nil {
			users[t.AppID] = append(users[t.AppID], *t.UserID)
		}
	}
	var methods []PayoutMethodRecord
	for appID, ids := range users {
		slices.Sort(ids) // a user paid twice in one claim is read once
		read, err := q.ListPayoutMethods(ctx, appID, slices.Compact(ids)...)
		if err != nil {
			return nil, err
		}
		methods = append(methods, read...)
	}
	return methods, nil
}

// methodOf is where t goes, its user's method picked from methods (usersMethods).
func (s *Service) methodOf(ctx context.Context, q Reads, t *TransferRecord, methods []PayoutMethodRecord) (*PayoutMethodRecord, error) {
	if t.UserID == nil {
		return s.appBankMethod(ctx, q, t.AppID)
	}
	return pickMethod(methods, *t.UserID, t.ExternalData.Platform, t.ExternalData.AccountID)
}
