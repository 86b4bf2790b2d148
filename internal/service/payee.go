package service

import (
	"context"
	"errors"
	"strings"

	"github.com/disburse/disburse/payouts"
)

// FindOrCreatePayee returns the app's user with the request's phone number or email, creating
// the user when there is none: how a payee opening a hosted page becomes a user.
func (s *Service) FindOrCreatePayee(ctx context.Context, appID string, req payouts.CreateUserRequest) (*payouts.User, error) {
	req.CountryCode = strings.TrimPrefix(strings.TrimSpace(req.CountryCode), "+")
	req.PhoneNumber = strings.TrimSpace(req.PhoneNumber)
	u, err := s.store.FindUserByContact(ctx, appID, strings.TrimSpace(req.Email), req.CountryCode, req.PhoneNumber)
	if err == nil {
		return &u.User, nil
	}
	if !errors.Is(err, ErrNoRecord) {
		return nil, err
	}
	return s.CreateUser(ctx, appID, req)
}

// IdentityVerifier checks a payee's identity against an outside provider (the sandbox's fails
// SSN last four 0000). A failed check is a payouts field error the form shows.
type IdentityVerifier interface {
	VerifyIdentity(ctx context.Context, ssnLast4, dateOfBirth string) error
}

// VerifyIdentity runs the identity check of a hosted flow and records the result.
func (s *Service) VerifyIdentity(ctx context.Context, appID, userID, ssnLast4, dateOfBirth string) error {
	p := payouts.Problems{}
	if len(ssnLast4) != 4 || !payouts.AllDigits(ssnLast4) {
		p.Add("ssn_last4", "must be 4 digits")
	}
	s.birthDate(p, "date_of_birth", dateOfBirth)
	if err := p.Err(); err != nil {
		return err
	}
	if err := s.cfg.Identity.VerifyIdentity(ctx, ssnLast4, dateOfBirth); err != nil {
		return err
	}
	return s.store.InTx(ctx, func(q Queries) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		user.Compliance.IDVerified = true
		return q.UpdateUser(ctx, user)
	})
}
