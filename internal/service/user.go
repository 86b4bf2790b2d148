package service

import (
	"context"
	"crypto/subtle"
	"errors"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// Verification tokens: six digits, ten minutes, five tries.
const (
	tokenDigits      = payouts.TokenDigits
	tokenLifetime    = 10 * time.Minute
	tokenMaxAttempts = 5
	// tokenResendGap is how long a user waits before another token is sent, so nobody can flood
	// a phone or reset the attempt count faster than a person types.
	tokenResendGap = 30 * time.Second
)

// CreateUser adds a payee.
func (s *Service) CreateUser(ctx context.Context, appID string, req payouts.CreateUserRequest) (*payouts.User, error) {
	rec, err := s.createUser(ctx, appID, req, "")
	if err != nil {
		return nil, err
	}
	return &rec.User, nil
}

// createUser makes a user; unproven names the contact a payee typed without proving it, when a
// hosted page makes the user (UserRecord.Unproven).
func (s *Service) createUser(ctx context.Context, appID string, req payouts.CreateUserRequest, unproven string) (*UserRecord, error) {
	rec, err := s.newUser(appID, req, unproven)
	if err != nil {
		return nil, err
	}
	if err := s.inTx(ctx, func(q *Tx) error { return q.createUser(ctx, rec) }); err != nil {
		return nil, err
	}
	return rec, nil
}

// newUser is the record of a new user of appID made from req, unwritten.
func (s *Service) newUser(appID string, req payouts.CreateUserRequest, unproven string) (*UserRecord, error) {
	req = req.Normalize()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	rec := &UserRecord{AppID: appID, User: payouts.User{
		ID: newID(), FirstName: req.FirstName, LastName: req.LastName, Email: req.Email,
		PhoneNumber: payouts.Phone{CountryCode: req.CountryCode, PhoneNumber: req.PhoneNumber},
		Status:      payouts.UserUnverified, Metadata: payouts.NormalizeMetadata(req.Metadata),
		Created: payouts.NewTime(s.now()),
	}, Unproven: unproven}
	if req.Username != "" {
		rec.Username = &req.Username
	}
	return rec, nil
}

// createUser writes a new user and its wallet.
func (q *Tx) createUser(ctx context.Context, rec *UserRecord) error {
	if err := q.CreateUser(ctx, rec); err != nil {
		return err
	}
	q.userCreated(rec)
	_, err := q.EnsureAccount(ctx, rec.AppID, ledger.UserWallet, rec.ID)
	return err
}

// GetUser returns a user with its wallet.
func (s *Service) GetUser(ctx context.Context, appID, id string) (*payouts.User, error) {
	rec, err := s.getUser(ctx, s.store, appID, id)
	if err != nil {
		return nil, err
	}
	return &rec.User, nil
}

func (s *Service) getUser(ctx context.Context, q Reads, appID, id string) (*UserRecord, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("user")
	}
	rec, err := q.GetUser(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "user")
	}
	return rec, nil
}

// ListUsers returns a page of users, newest first.
func (s *Service) ListUsers(ctx context.Context, appID string, page payouts.Page, f payouts.UserFilter) (*payouts.List[payouts.User], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if f.Status != "" && !f.Status.Valid() {
		return nil, payouts.FieldError("status", "must be one of unverified, verified, in_review, disabled")
	}
	f.Search = strings.TrimSpace(f.Search)
	if len(f.Search) > 100 {
		return nil, payouts.FieldError("search", "must be at most 100 characters")
	}
	recs, more, err := s.store.ListUsers(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.User]{HasMore: more, Data: make([]payouts.User, len(recs))}
	for i := range recs {
		out.Data[i] = recs[i].User
	}
	return out, nil
}

// cursorError turns a store's unknown cursor into the API's validation error, naming the
// cursor the page used.
func cursorError(err error, page payouts.Page) error {
	if !errors.Is(err, ErrNoRecord) {
		return err
	}
	field := "starting_after"
	if page.EndingBefore != "" {
		field = "ending_before"
	}
	return payouts.FieldError(field, "is not the id of an object in this list")
}

// UpdateUser changes a user's default payout method or metadata.
func (s *Service) UpdateUser(ctx context.Context, appID, id string, req payouts.UpdateUserRequest) (*payouts.User, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out *payouts.User
	err := s.inTx(ctx, func(q *Tx) error {
		rec, err := s.getUser(ctx, q, appID, id)
		if err != nil {
			return err
		}
		if req.DefaultPayoutMethod != nil {
			methods, err := q.ListPayoutMethods(ctx, appID, id)
			if err != nil {
				return err
			}
			var chosen string
			for _, m := range methods { // newest first: the latest method of the platform wins
				if m.Platform == *req.DefaultPayoutMethod {
					chosen = m.ID
					break
				}
			}
			if chosen == "" {
				return payouts.FieldError("default_payout_method", "no payout method of this platform is saved for the user")
			}
			if err := q.SetDefaultPayoutMethod(ctx, appID, id, chosen); err != nil {
				return err
			}
		}
		if req.Metadata != nil {
			before := rec.User
			rec.Metadata = payouts.NormalizeMetadata(req.Metadata)
			if err := q.updateUser(ctx, before, rec); err != nil {
				return err
			}
		}
		rec, err = q.GetUser(ctx, appID, id)
		if err != nil {
			return err
		}
		out = &rec.User
		return nil
	})
	return out, err
}

// DeleteUser removes a user who holds no money and has nothing in flight. The ledger keeps the
// user's history.
func (s *Service) DeleteUser(ctx context.Context, appID, id string) (*payouts.User, error) {
	var out *payouts.User
	err := s.inTx(ctx, func(q *Tx) error {
		rec, err := s.getUser(ctx, q, appID, id)
		if err != nil {
			return err
		}
		a, err := q.FindAccount(ctx, appID, ledger.UserWallet, id)
		if err != nil && !errors.Is(err, ErrNoRecord) {
			return err
		}
		if a != nil && (a.Balance() != 0 || a.DebitsPending != 0 || a.CreditsPending != 0) {
			return payouts.Errorf(payouts.EInvalidTransaction,
				"The user holds money or has a payout in flight; move it out before deleting the user.")
		}
		if err := q.DeleteUser(ctx, appID, id, s.now()); err != nil {
			return err
		}
		rec.Status = payouts.UserDisabled
		out = &rec.User
		return nil
	})
	return out, err
}

// SendVerificationToken texts the user a six-digit token, replacing any earlier one.
func (s *Service) SendVerificationToken(ctx context.Context, appID, id string, req payouts.SendVerificationTokenRequest) error {
	user, err := s.GetUser(ctx, appID, id)
	if err != nil {
		return err
	}
	channel := "sms"
	if req.UseVoice {
		channel = "voice"
	}
	return s.sendToken(ctx, appID, id, contact{channel: channel, to: user.PhoneNumber.String(),
		country: user.PhoneNumber.CountryCode, field: "phone_number"}, codeForPhone)
}

// contact is where a token goes (and, for a phone, its country calling code), and the form
// field that names that address.
type contact struct{ channel, to, country, field string }

// String is the contact as a claim records it: "sms +1 5555550101".
func (c contact) String() string { return c.channel + " " + c.to }

// sendToken sends the user a new token at to, within the app's limit of codes and the limits of
// messages (see sendCode).
func (s *Service) sendToken(ctx context.Context, appID, userID string, to contact, use codeUse) error {
	return s.sendCode(ctx, appID, userID, userID, to, use)
}

// sendCode sends a new code at to, kept under key: a user's id, or what else the code proves
// (flowEmailCode); userID is the user the message is for, if any, within the app's limit of
// codes and the limits of messages. The code is recorded with its message in one transaction and sent at once; a message
// the provider refuses for good is a delivery-failed error on the address's field, one it could
// not take yet is tried again by the worker.
func (s *Service) sendCode(ctx context.Context, appID, key, userID string, to contact, use codeUse) error {
	if err := s.allow(ctx, s.limits.sendsPerApp, appID, "This app has sent too many codes; try again later."); err != nil {
		return err
	}
	token := randomDigits(tokenDigits)
	rec := &VerificationRecord{AppID: appID, UserID: key, TokenHash: []byte(s.keyedHash("verify", appID, key, token)),
		Expires: s.now().Add(tokenLifetime)}
	var msg *OutboundMessageRecord
	err := s.inTx(ctx, func(q *Tx) error {
		prior, err := q.GetVerification(ctx, appID, key)
		if err == nil && s.now().Before(prior.Expires.Add(-tokenLifetime+tokenResendGap)) {
			return payouts.Errorf(payouts.ETooManyRequests, "A code was sent less than 30 seconds ago; wait a moment before asking for another.")
		}
		if err != nil && !errors.Is(err, ErrNoRecord) {
			return err
		}
		if err := q.SaveVerification(ctx, rec); err != nil {
			return err
		}
		app, err := q.GetApp(ctx, appID)
		if err != nil {
			return err
		}
		msg, err = s.queueMessage(ctx, q, codeMessage(appID, app.Name, to, token, use),
			OutboundMessageRecord{UserID: userID, Purpose: payouts.PurposeCode}, to.field)
		return err
	})
	if err != nil {
		return err
	}
	if sent, err := s.sendQueued(ctx, msg.ID); err != nil {
		return err
	} else if sent != nil && sent.Status == payouts.MessageFailed {
		s.log.WarnContext(ctx, "verification code not delivered", "app", appID, "user", userID, "channel", to.channel, "err", sent.Error)
		return &payouts.Error{Code: payouts.EDeliveryFailed, Message: "We could not deliver a code there.",
			Fields: map[string]string{to.field: "we could not deliver a code to this address; check it or use another"}}
	}
	return nil
}

// VerifyUser checks a token the user received. Wrong tries count; after five the token is gone.
func (s *Service) VerifyUser(ctx context.Context, appID, id string, req payouts.VerifyUserRequest) error {
	if err := req.Validate(); err != nil {
		return err
	}
	var wrong error // the answer to a wrong token, returned after the attempt is committed
	err := s.inTx(ctx, func(q *Tx) error {
		user, err := s.getUser(ctx, q, appID, id)
		if err != nil {
			return err
		}
		if wrong, err = s.spendCode(ctx, q, appID, id, strings.TrimSpace(req.Token)); err != nil || wrong != nil {
			return err
		}
		return q.markVerified(ctx, user)
	})
	if err != nil {
		return err
	}
	return wrong
}

// spendCode checks token against the code kept under key (see sendCode): a right one is spent, a
// wrong one counts, and after five wrong ones the code is gone. A wrong or missing code is the
// answer wrong, for the caller to return once the attempt is committed.
func (s *Service) spendCode(ctx context.Context, q *Tx, appID, key, token string) (wrong error, err error) {
	v, err := q.GetVerification(ctx, appID, key)
	if errors.Is(err, ErrNoRecord) || (err == nil && !s.now().Before(v.Expires)) {
		return payouts.FieldError("token", "no valid token: it expired or was never sent; request a new one"), nil
	}
	if err != nil {
		return nil, err
	}
	want := []byte(s.keyedHash("verify", appID, key, token))
	if subtle.ConstantTimeCompare(want, v.TokenHash) != 1 {
		v.Attempts++
		if v.Attempts >= tokenMaxAttempts {
			return payouts.FieldError("token", "too many wrong tokens; request a new one"), q.DeleteVerification(ctx, appID, key)
		}
		return payouts.FieldError("token", "is not the token we sent"), q.SaveVerification(ctx, v)
	}
	return nil, q.DeleteVerification(ctx, appID, key)
}

// markVerified records that user proved a contact.
func (q *Tx) markVerified(ctx context.Context, user *UserRecord) error {
	before := user.User
	user.Verified = true
	if user.Status == payouts.UserUnverified {
		user.Status = payouts.UserVerified
	}
	return q.updateUser(ctx, before, user)
}
