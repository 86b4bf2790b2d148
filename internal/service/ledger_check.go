package service

import (
	"context"
	"errors"
	"strings"
)

// LedgerViolation is what CheckLedger found broken in one app's or organization's ledger.
type LedgerViolation struct {
	AppID    string
	Problems []string
}

func (v *LedgerViolation) Error() string {
	return "ledger of app " + v.AppID + ": " + strings.Join(v.Problems, "; ")
}

// LedgerReport is the outcome of checking every ledger: how many were checked and the
// violations found, each naming its app.
type LedgerReport struct {
	Checked    int
	Violations []LedgerViolation
}

// CheckAllLedgers runs CheckLedger on every app and organization. A violation is reported and
// the check goes on to the next ledger; a failure to read a ledger ends it with the error.
func (s *Service) CheckAllLedgers(ctx context.Context) (LedgerReport, error) {
	apps, err := s.Apps(ctx)
	if err != nil {
		return LedgerReport{}, err
	}
	orgs, err := s.Organizations(ctx)
	if err != nil {
		return LedgerReport{}, err
	}
	var r LedgerReport
	for _, app := range append(apps, orgs...) {
		err := s.CheckLedger(ctx, app.ID)
		var v *LedgerViolation
		switch {
		case errors.As(err, &v):
			r.Violations = append(r.Violations, *v)
		case err != nil:
			return r, err
		}
		r.Checked++
	}
	return r, nil
}
