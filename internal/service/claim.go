package service

import (
	"context"
	"strings"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// OpenPayoutLink returns a payout link by id alone, with its app: the hosted claim page's entry
// point.
func (s *Service) OpenPayoutLink(ctx context.Context, id string) (*PayoutLinkRecord, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout link")
	}
	l, err := s.store.PayoutLinkByID(ctx, id)
	if err != nil {
		return nil, orNotFound(err, "payout link")
	}
	l.Link = s.PayoutLinkURL(&l.PayoutLink)
	return l, nil
}

// ClaimPayoutLink moves a link's money into the wallet of the verified user claiming it, and
// records when and through which contact (see payeeContact) for the link's timeline.
func (s *Service) ClaimPayoutLink(ctx context.Context, linkID, userID string) (*payouts.PayoutLink, error) {
	var appID string
	err := s.inTx(ctx, func(q *Tx) error {
		l, err := q.PayoutLinkByID(ctx, linkID)
		if err != nil {
			return orNotFound(err, "payout link")
		}
		appID = l.AppID
		if !l.Status.Open() {
			return payouts.Errorf(payouts.EInvalidTransaction, "This payout link is %s.", l.Status)
		}
		if l.UserID != nil && *l.UserID != userID {
			return payouts.Errorf(payouts.EUnauthorized, "This payout link was sent to someone else.")
		}
		user, err := s.getUser(ctx, q, l.AppID, userID)
		if err != nil {
			return err
		}
		if err := s.settleLink(ctx, q, l, ledger.OpCommit, user); err != nil {
			return err
		}
		if !l.TaxExempt {
			if err := s.countPayment(ctx, planLedger{q}, user, l.Amount); err != nil {
				return err
			}
		}
		from := l.Status
		claimedAt := payouts.NewTime(s.now())
		l.Status, l.ClaimedUserID, l.Updated = payouts.LinkClaimed, &user.ID, claimedAt.Time
		l.ClaimedAt, l.ClaimedVia = &claimedAt, payeeContact(l, user).String()
		if err := q.UpdatePayoutLink(ctx, l, from); err != nil {
			return err
		}
		q.linkUpdated(l, from)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, linkID)
}

// The claim rules: a payout link is claimed only by the payee it names. A link issued to a user
// is claimed by that user, with a code to their phone; a link that names a phone, with a code
// to that phone; a link that names only an email, with a code to that email, sent before anyone
// is looked up or made; a link that names nobody, by the first payee who verifies a phone on it
// (VerifyPayee binds its flow), and by nobody else after. Whoever identifies is looked up only by
// the contact the code goes to (FindOrCreatePayee, and for an email only once the code proved it:
// VerifyPayee), so the user a flow binds is always the one whose contact was proven.

// namedPayeeMatches checks the phone a payee identifying on a link's flow gave against the phone
// the link names, before any code goes out or any user is made. A link that names only an email
// asks for no phone before the email is proven (CodeByEmail).
func namedPayeeMatches(l *PayoutLinkRecord, phone payouts.Phone) error {
	if l != nil && l.UserID == nil && l.Payee.PhoneNumber != "" && namedPhone(l) != phone {
		return payouts.FieldError("phone_number", "is not the number this payout was sent to")
	}
	return nil
}

// namesPayee reports whether a flow's link names its payee (a user, a phone or an email), so
// that the flow accepts only that payee's contact.
func namesPayee(l *PayoutLinkRecord) bool {
	return l != nil && l.NamesPayee()
}

// CodeByEmail reports whether the code that proves the payee of a flow paying out l goes to the
// email l names: when l names an email and no phone and no user. Otherwise it goes to a phone.
func CodeByEmail(l *PayoutLinkRecord) bool {
	return l != nil && l.UserID == nil && l.Payee.PhoneNumber == "" && l.Payee.Email != ""
}

// payeeContact is where the code that proves user, the payee of a flow paying out l, goes: the
// email l names (CodeByEmail); else the user's phone, or their email when a payee typed the
// phone unproven and proved the email (UserRecord.Unproven). A code never goes to a contact
// nobody proved or vouched for.
func payeeContact(l *PayoutLinkRecord, user *UserRecord) contact {
	switch {
	case CodeByEmail(l):
		return contact{channel: "email", to: l.Payee.Email, field: "email"}
	case user.Unproven == unprovenPhone:
		return contact{channel: "email", to: user.Email, field: "email"}
	}
	return contact{channel: "sms", to: user.PhoneNumber.String(), country: user.PhoneNumber.CountryCode, field: "phone_number"}
}

// PayeeCodeEmail is the email address the payee userID of a hosted flow gets their code at, or
// "" when it goes to their phone; with the user, whose phone the page masks.
func (s *Service) PayeeCodeEmail(ctx context.Context, f *HostedFlow, userID string) (*payouts.User, string, error) {
	user, err := s.getUser(ctx, s.store, f.AppID, userID)
	if err != nil {
		return nil, "", err
	}
	if c := payeeContact(f.Link, user); c.channel == "email" {
		return &user.User, c.to, nil
	}
	return &user.User, "", nil
}

// namedPhone is the phone a link names, as users' phones are kept.
func namedPhone(l *PayoutLinkRecord) payouts.Phone {
	return payouts.Phone{CountryCode: strings.TrimPrefix(strings.TrimSpace(l.Payee.CountryCode), "+"),
		PhoneNumber: strings.Map(keepDigits, l.Payee.PhoneNumber)}
}
