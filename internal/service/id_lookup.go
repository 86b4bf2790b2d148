package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// LookUpIDs finds the app's users, payout links, transfers and flows whose ids begin with prefix,
// at least a short id (GET /v2/id-lookup, our extension).
func (s *Service) LookUpIDs(ctx context.Context, appID, prefix string) (*payouts.IDLookup, error) {
	prefix, err := payouts.NormalizeIDPrefix(prefix)
	if err != nil {
		return nil, err
	}
	found, err := s.store.LookUpIDs(ctx, appID, prefix, payouts.IDLookupLimit)
	if err != nil {
		return nil, err
	}
	return &found, nil
}
