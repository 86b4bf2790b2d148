package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// Withdraw pays out amount, or the user's whole withdrawable balance when amount is zero, to one
// of their saved methods: the payout step of a hosted flow.
func (s *Service) Withdraw(ctx context.Context, appID, userID, methodID string, amount payouts.Money, feeParty payouts.FeeParty, linkID string) (*payouts.Transfer, error) {
	var made *madePayout
	err := s.inTxWith(ctx, Intent{UsersToRead: []string{userID}}, func(q *Tx) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		if user.Wallet.WithdrawableAmount <= 0 {
			return payouts.Errorf(payouts.EInsufficientFunds, "There is nothing to withdraw.")
		}
		if amount == 0 {
			amount = user.Wallet.WithdrawableAmount
		}
		if amount < 0 || amount > user.Wallet.WithdrawableAmount {
			return payouts.Errorf(payouts.EInsufficientFunds, "There is not that much to withdraw.")
		}
		made, err = s.payout(ctx, q, payoutOrder{user: user, amount: amount,
			platform: payouts.PlatformDefault, accountID: methodID, feeParty: feeParty, payoutLinkID: linkID})
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.answerMade(ctx, made)
}
