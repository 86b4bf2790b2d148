package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// LookUpIDs finds the app's users, payout links, transfers and flows whose short id is text or
// whose ids begin with it (GET /v2/id-lookup, our extension).
func (s *Service) LookUpIDs(ctx context.Context, appID, text string) (*payouts.IDLookup, error) {
	text, err := payouts.NormalizeIDQuery(text)
	if err != nil {
		return nil, err
	}
	found, err := s.store.LookUpIDs(ctx, appID, text, payouts.IDLookupLimit)
	if err != nil {
		return nil, err
	}
	return &found, nil
}
