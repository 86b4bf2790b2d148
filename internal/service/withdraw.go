package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// Withdraw pays out a user's whole withdrawable balance to one of their saved methods: the
// payout step of a hosted flow.
func (s *Service) Withdraw(ctx context.Context, appID, userID, methodID string, feeParty payouts.FeeParty, linkID string) (*payouts.Transfer, error) {
	var id string
	err := s.store.InTx(ctx, func(q Queries) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		if user.Wallet.WithdrawableAmount <= 0 {
			return payouts.Errorf(payouts.EInsufficientFunds, "There is nothing to withdraw.")
		}
		t, err := s.payout(ctx, q, payoutOrder{user: user, amount: user.Wallet.WithdrawableAmount,
			platform: payouts.PlatformDefault, accountID: methodID, feeParty: feeParty, payoutLinkID: linkID})
		if err != nil {
			return err
		}
		id = t.ID
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.submitNow(ctx, appID, id)
	return s.GetTransfer(ctx, appID, id)
}
