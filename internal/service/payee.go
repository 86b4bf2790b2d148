package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// FindOrCreatePayee returns the payee a hosted flow's code to a phone proves: the app's user
// whose record holds req's phone, as an operator gave it or a payee proved it, never one a payee
// only typed. With no such user it makes one from req, the email marked unproven. The email is
// never looked up: an email typed beside a phone finds nobody (issue 44's takeover). A phone on
// two users' records is refused rather than one of them chosen. A link's email is proven before
// anyone is looked up by it (VerifyPayee, GivePayeeDetails).
func (s *Service) FindOrCreatePayee(ctx context.Context, appID string, req payouts.CreateUserRequest) (*UserRecord, error) {
	found, err := s.store.FindUsersByProvenPhone(ctx, appID, payouts.Phone{CountryCode: req.CountryCode, PhoneNumber: req.PhoneNumber})
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
	case 1:
		return &found[0], nil
	default:
		return nil, payouts.FieldError("phone_number", "is on more than one account here; ask the sender for a link made for your account")
	}
	u, err := s.createUser(ctx, appID, req, unprovenEmail)
	if payouts.ErrorCode(err) == payouts.EEmailExists {
		return nil, payouts.FieldError("email", "is on another account: open the link sent to that address, or give another email")
	}
	return u, err
}

// IdentityVerifier checks a payee's identity against an outside provider (the sandbox's fails
// SSN last four 0000). A failed check is a payouts field error the form shows.
type IdentityVerifier interface {
	VerifyIdentity(ctx context.Context, ssnLast4, dateOfBirth string) error
}

// NoIdentityProvider is the identity check of a service outside sandbox mode, where no provider
// checks identities: it refuses every check rather than pass a payee it never checked.
type NoIdentityProvider struct{}

// VerifyIdentity refuses the check.
func (NoIdentityProvider) VerifyIdentity(context.Context, string, string) error {
	return payouts.FieldError("ssn_last4", "identity cannot be verified here yet; ask the sender to verify you another way")
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
	return s.inTx(ctx, func(q *Tx) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		before := user.User
		user.Compliance.IDVerified = true
		return q.updateUser(ctx, before, user)
	})
}
