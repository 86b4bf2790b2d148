package service

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// CreatePayoutLink reserves the app's money for a payee, who claims it on a hosted page. It
// returns the link and whether it was made by an earlier request with the same idempotency key.
func (s *Service) CreatePayoutLink(ctx context.Context, appID string, req payouts.CreatePayoutLinkRequest) (*payouts.PayoutLink, bool, error) {
	link, extra, err := s.validatePayoutLink(&req)
	if err != nil {
		return nil, false, err
	}
	id, replayed, err := s.idempotent(ctx, appID, "payout-link", req.IdempotencyKey, req, true, func(q Queries) (string, error) {
		link.AppID = appID
		if req.UserID != "" {
			user, err := s.getUser(ctx, q, appID, req.UserID)
			if err != nil {
				return "", err
			}
			link.UserID = &user.ID
			if link.Payee == (payouts.Payee{}) {
				link.Payee = payouts.Payee{FirstName: user.FirstName, LastName: user.LastName, Email: user.Email,
					CountryCode: user.PhoneNumber.CountryCode, PhoneNumber: user.PhoneNumber.PhoneNumber}
			}
		}
		if err := checkDeliveryContact(link); err != nil {
			return "", err
		}
		b, err := s.book(ctx, q, appID)
		if err != nil {
			return "", err
		}
		app, err := b.app(ctx)
		if err != nil {
			return "", err
		}
		escrow, err := b.escrow(ctx)
		if err != nil {
			return "", err
		}
		// The reservation is a balance transfer from the app, pending until the link is claimed
		// (then it completes to the payee) or cancelled (then it fails and the money returns).
		t := s.newTransfer(appID, payouts.TransferBalance, -link.Amount, nil)
		t.Status, t.PayoutLinkID, t.TaxExempt = payouts.TransferPending, &link.ID, link.TaxExempt
		if err := q.CreateTransfer(ctx, t); err != nil {
			return "", err
		}
		if _, err := b.move(ctx, t.ID, []line{{from: app, to: escrow, amount: link.Amount, typ: payouts.TransactionBalance, pending: true}}, nil); err != nil {
			return "", err
		}
		steps := []string{payouts.StepPayout}
		if link.ForceCompliance {
			steps = append(steps, payouts.StepCompliance)
		}
		for _, st := range extra.steps {
			if !slices.Contains(steps, st) {
				steps = append(steps, st)
			}
		}
		ordered, _, _ := validateSteps("additional_steps", toSteps(steps, extra.redirect), false)
		f := s.newFlow(appID, ordered, extra.redirect, nil)
		f.PayoutLinkID, f.UserID = &link.ID, link.UserID
		if err := q.CreateFlow(ctx, f); err != nil {
			return "", err
		}
		link.FlowID, link.TransferID = &f.ID, &t.ID
		if err := q.CreatePayoutLink(ctx, link); err != nil {
			return "", err
		}
		return link.ID, nil
	})
	if err != nil {
		return nil, false, err
	}
	out, err := s.GetPayoutLink(ctx, appID, id)
	return out, replayed, err
}

func toSteps(names []string, redirect string) []payouts.Step {
	out := make([]payouts.Step, len(names))
	for i, n := range names {
		out[i] = payouts.Step{Name: n}
		if n == payouts.StepRedirect {
			out[i].RedirectURL = redirect
		}
	}
	return out
}

type linkExtras struct {
	steps    []string
	redirect string
}

func (s *Service) validatePayoutLink(req *payouts.CreatePayoutLinkRequest) (*PayoutLinkRecord, linkExtras, error) {
	p := payouts.Problems{}
	checkAmount(p, req.Amount, false)
	if req.UserID != "" && !payouts.ValidID(req.UserID) {
		p.Add("user_id", "is not a valid id")
	}
	var payee payouts.Payee
	if req.Payee != nil {
		payee = *req.Payee
		payee.FirstName, payee.LastName = strings.TrimSpace(payee.FirstName), strings.TrimSpace(payee.LastName)
		payee.Email = strings.TrimSpace(payee.Email)
		payee.CountryCode = strings.TrimPrefix(strings.TrimSpace(payee.CountryCode), "+")
		payee.PhoneNumber = strings.TrimSpace(payee.PhoneNumber)
		if payee.Email != "" && !payouts.ValidEmail(payee.Email) {
			p.Add("payee.email", "is not a valid email address")
		}
		if payee.PhoneNumber != "" && !payouts.ValidPhoneNumber(payee.PhoneNumber) {
			p.Add("payee.phone_number", "must be 4 to 14 digits")
		}
		if payee.PhoneNumber != "" && payee.CountryCode == "" {
			payee.CountryCode = "1"
		}
		if payee.CountryCode != "" && !payouts.ValidCountryCode(payee.CountryCode) {
			p.Add("payee.country_code", "must be 1 to 3 digits")
		}
		if len(payee.FirstName) > 100 || len(payee.LastName) > 100 {
			p.Add("payee.first_name", "names must be at most 100 characters")
		}
	}
	delivery := payouts.Delivery{Method: payouts.DeliveryLink}
	if req.Delivery != nil {
		delivery.Method, delivery.Message = req.Delivery.Method, strings.TrimSpace(req.Delivery.Message)
		if delivery.Method == "" {
			delivery.Method = payouts.DeliveryLink
		}
		switch delivery.Method {
		case payouts.DeliveryLink, payouts.DeliverySMS, payouts.DeliveryEmail:
		default:
			p.Add("delivery.method", "must be link, sms or email")
		}
		if len(delivery.Message) > 500 {
			p.Add("delivery.message", "must be at most 500 characters")
		}
	}
	if len(req.Memo) > 500 {
		p.Add("memo", "must be at most 500 characters")
	}
	if !req.PayoutFeeParty.Valid() {
		p.Add("payout_fee_party", "must be user or platform")
	}
	if m := payouts.ValidateMetadata(req.Metadata); m != "" {
		p.Add("metadata", m)
	}
	steps, redirect, err := validateSteps("additional_steps", req.AdditionalSteps, false)
	if err != nil {
		var e *payouts.Error
		errors.As(err, &e)
		for f, pr := range e.Fields {
			p.Add(f, pr)
		}
	}
	if err := p.Err(); err != nil {
		return nil, linkExtras{}, err
	}
	now := s.now()
	link := &PayoutLinkRecord{ForceCompliance: req.ForceCollectComplianceInfo, Updated: now,
		PayoutLink: payouts.PayoutLink{
			ID: uuid.NewString(), Created: payouts.NewTime(now), Amount: payouts.Money(req.Amount),
			Payee: payee, Delivery: delivery, TaxExempt: req.TaxExempt, Memo: strings.TrimSpace(req.Memo),
			Metadata: payouts.NormalizeMetadata(req.Metadata), PayoutFeeParty: req.PayoutFeeParty,
		}}
	link.Status = payouts.LinkDelivered
	if delivery.Method != payouts.DeliveryLink {
		link.Status = payouts.LinkDeliveryPending
	}
	return link, linkExtras{steps: steps, redirect: redirect}, nil
}

// checkDeliveryContact makes sure an sms or email link has somewhere to go.
func checkDeliveryContact(l *PayoutLinkRecord) error {
	switch {
	case l.Delivery.Method == payouts.DeliverySMS && l.Payee.PhoneNumber == "":
		return payouts.FieldError("payee.phone_number", "is required to deliver by sms")
	case l.Delivery.Method == payouts.DeliveryEmail && l.Payee.Email == "":
		return payouts.FieldError("payee.email", "is required to deliver by email")
	}
	return nil
}

func (s *Service) linkOut(l *PayoutLinkRecord) *payouts.PayoutLink {
	out := l.PayoutLink
	out.Link = s.PayoutLinkURL(l.ID)
	return &out
}

// GetPayoutLink returns a payout link.
func (s *Service) GetPayoutLink(ctx context.Context, appID, id string) (*payouts.PayoutLink, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout link")
	}
	l, err := s.store.GetPayoutLink(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "payout link")
	}
	return s.linkOut(l), nil
}

// ListPayoutLinks returns a page of payout links, newest first.
func (s *Service) ListPayoutLinks(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutLinkFilter) (*payouts.List[payouts.PayoutLink], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if f.Status != "" && !f.Status.Valid() {
		return nil, payouts.FieldError("status", "must be sent, claimed, delivery_pending, delivery_failed, delivered or canceled")
	}
	f.Search = strings.TrimSpace(f.Search)
	if len(f.Search) > 100 {
		return nil, payouts.FieldError("search", "must be at most 100 characters")
	}
	recs, more, err := s.store.ListPayoutLinks(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.PayoutLink]{HasMore: more, Data: make([]payouts.PayoutLink, len(recs))}
	for i := range recs {
		out.Data[i] = *s.linkOut(&recs[i])
	}
	return out, nil
}

// CancelPayoutLink cancels an unclaimed link; the reserved money returns to the app.
func (s *Service) CancelPayoutLink(ctx context.Context, appID, id string) (*payouts.PayoutLink, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout link")
	}
	err := s.store.InTx(ctx, func(q Queries) error {
		l, err := q.GetPayoutLink(ctx, appID, id)
		if err != nil {
			return orNotFound(err, "payout link")
		}
		if !l.Status.Open() {
			return payouts.Errorf(payouts.EInvalidTransaction, "This payout link is %s and can no longer be canceled.", l.Status)
		}
		if err := s.settleLink(ctx, q, l, ledger.OpVoid, nil); err != nil {
			return err
		}
		from := l.Status
		l.Status, l.Updated = payouts.LinkCanceled, s.now()
		return q.UpdatePayoutLink(ctx, l, from)
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, id)
}

// settleLink ends a link's reservation: committed to the claiming user, or voided.
func (s *Service) settleLink(ctx context.Context, q Queries, l *PayoutLinkRecord, op ledger.Op, user *UserRecord) error {
	t, err := q.GetTransfer(ctx, l.AppID, *l.TransferID)
	if err != nil {
		return err
	}
	b, err := s.book(ctx, q, l.AppID)
	if err != nil {
		return err
	}
	var extra []line
	if user != nil {
		escrow, err := b.escrow(ctx)
		if err != nil {
			return err
		}
		wallet, err := b.user(ctx, &user.User)
		if err != nil {
			return err
		}
		extra = append(extra, line{from: escrow, to: wallet, amount: l.Amount, typ: payouts.TransactionPayment})
	}
	if err := s.settlePostings(ctx, q, b, t, op, extra); err != nil {
		return err
	}
	t.Updated = s.now()
	if user != nil {
		t.Status, t.UserID = payouts.TransferCompleted, &user.ID
	} else {
		t.Status, t.FailureReason = payouts.TransferFailed, "payout link canceled"
	}
	return q.UpdateTransfer(ctx, t, payouts.TransferPending)
}

// deliveryLease is how long a worker holds a payout link it is delivering; a worker that dies
// mid-delivery lets another try again after it.
const deliveryLease = time.Minute

// DeliverDue sends payout links waiting for sms or email delivery and returns how many it
// handled. Each link is leased in one transaction, sent outside any transaction (a notifier may
// be slow, or write to the database itself), and marked in another.
func (s *Service) DeliverDue(ctx context.Context, max int) (int, error) {
	n := 0
	for ; n < max; n++ {
		var l *PayoutLinkRecord
		var appName string
		err := s.store.InTx(ctx, func(q Queries) error {
			var err error
			l, err = q.ClaimDueDelivery(ctx, s.now())
			if errors.Is(err, ErrNoRecord) {
				l = nil
				return nil
			}
			if err != nil {
				return err
			}
			app, err := q.GetApp(ctx, l.AppID)
			if err != nil {
				return err
			}
			appName = app.Name
			l.Updated = s.now().Add(deliveryLease)
			return q.UpdatePayoutLink(ctx, l, payouts.LinkDeliveryPending)
		})
		if err != nil || l == nil {
			return n, err
		}
		status := payouts.LinkDelivered
		if err := s.notifier.Send(ctx, linkMessage(l, appName, s.PayoutLinkURL(l.ID))); err != nil {
			s.log.Warn("payout link delivery failed", "link", l.ID, "err", err)
			status = payouts.LinkDeliveryFailed
		}
		err = s.store.InTx(ctx, func(q Queries) error {
			l.Status, l.Updated = status, s.now()
			err := q.UpdatePayoutLink(ctx, l, payouts.LinkDeliveryPending)
			if errors.Is(err, ErrNoRecord) {
				return nil // cancelled or claimed while it was being sent
			}
			return err
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func linkMessage(l *PayoutLinkRecord, appName, url string) Message {
	m := Message{AppID: l.AppID, Channel: string(l.Delivery.Method), Subject: appName + " sent you " + l.Amount.String()}
	m.Body = appName + " sent you " + l.Amount.String() + ". Claim it here: " + url
	if l.Delivery.Message != "" {
		m.Body = l.Delivery.Message + "\n\n" + m.Body
	}
	if l.Delivery.Method == payouts.DeliveryEmail {
		m.To = l.Payee.Email
	} else {
		m.To = payouts.Phone{CountryCode: l.Payee.CountryCode, PhoneNumber: l.Payee.PhoneNumber}.String()
	}
	return m
}

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
	l.Link = s.PayoutLinkURL(l.ID)
	return l, nil
}

// ClaimPayoutLink moves a link's money into the wallet of the verified user claiming it.
func (s *Service) ClaimPayoutLink(ctx context.Context, linkID, userID string) (*payouts.PayoutLink, error) {
	var appID string
	err := s.store.InTx(ctx, func(q Queries) error {
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
			if err := s.recordPayment(ctx, q, user, l.Amount); err != nil {
				return err
			}
		}
		from := l.Status
		l.Status, l.ClaimedUserID, l.Updated = payouts.LinkClaimed, &user.ID, s.now()
		return q.UpdatePayoutLink(ctx, l, from)
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, linkID)
}

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
	return s.GetTransfer(ctx, appID, id)
}

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

// VerifyIdentity runs the sandbox identity check of a hosted flow: it passes unless the last
// four digits of the SSN are 0000 (the documented failure trigger), and records the result.
func (s *Service) VerifyIdentity(ctx context.Context, appID, userID, ssnLast4, dateOfBirth string) error {
	p := payouts.Problems{}
	if len(ssnLast4) != 4 || !payouts.AllDigits(ssnLast4) {
		p.Add("ssn_last4", "must be 4 digits")
	}
	s.birthDate(p, "date_of_birth", dateOfBirth)
	if err := p.Err(); err != nil {
		return err
	}
	if ssnLast4 == TriggerFailDigits {
		return payouts.FieldError("ssn_last4", "we could not verify your identity with these details")
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
