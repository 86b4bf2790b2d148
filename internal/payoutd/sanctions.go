package payoutd

import (
	"context"

	"github.com/disburse/disburse/internal/sanctions"
	"github.com/disburse/disburse/internal/service"
)

// LoadSanctions reads OFAC's lists at path (a folder of the legacy CSV files, or one primary
// file) and makes them the ones payees are screened against; when they differ from the list
// loaded last, every payee is screened again.
func (s *Server) LoadSanctions(ctx context.Context, path string) (*service.SanctionsLoad, error) {
	l, err := sanctions.Load(path)
	if err != nil {
		return nil, err
	}
	return s.service.LoadSanctions(ctx, l, path)
}
