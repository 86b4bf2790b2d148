package service

import (
	"context"
	"slices"
	"strings"

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
	id, replayed, err := s.idempotentAs(ctx, Intent{UsersToRead: []string{req.UserID}}, appID, "payout-link", req.IdempotencyKey, "", req, true, func(q *Tx) (string, error) {
		return s.issuePayoutLink(ctx, q, appID, req.UserID, link, extra)
	})
	if err != nil {
		return nil, false, err
	}
	out, err := s.GetPayoutLink(ctx, appID, id)
	return out, replayed, err
}

// issuePayoutLink decides the link's reservation from the app's wallet (its transfer and
// movement) into q's plan and stores the link with its flow, for the user userID when not empty.
func (s *Service) issuePayoutLink(ctx context.Context, q *Tx, appID, userID string, link *PayoutLinkRecord, extra linkExtras) (string, error) {
	link.AppID = appID
	var user *UserRecord
	if userID != "" {
		var err error
		if user, err = s.getUser(ctx, q, appID, userID); err != nil {
			return "", err
		}
	}
	if err := addressLink(link, user); err != nil {
		return "", err
	}
	b, err := s.planBook(ctx, q, appID)
	if err != nil {
		return "", err
	}
	t := s.newTransfer(s.transferIDs.New(appID), appID, payouts.TransferBalance, -link.Amount, nil)
	t.Status, t.PayoutLinkID, t.TaxExempt = payouts.TransferPending, &link.ID, link.TaxExempt
	postings, err := b.reserveLink(ctx, t.ID, link.Amount)
	if err != nil {
		return "", err
	}
	q.plan.Transfer = t
	q.transferCreated(t)
	q.transferWritten(t, postings)
	steps := []string{payouts.StepPayout}
	if link.ForceCompliance {
		steps = append(steps, payouts.StepCompliance)
	}
	for _, st := range extra.steps {
		if !slices.Contains(steps, st) {
			steps = append(steps, st)
		}
	}
	ordered, _ := payouts.StepOrder(toSteps(steps, extra.redirect))
	f := s.newFlow(appID, ordered, extra.redirect, nil)
	f.PayoutLinkID, f.UserID = &link.ID, link.UserID
	if err := q.CreateFlow(ctx, f); err != nil {
		return "", err
	}
	link.FlowID, link.TransferID = &f.ID, &t.ID
	if err := q.CreatePayoutLink(ctx, link); err != nil {
		return "", err
	}
	q.linkCreated(link)
	if link.Status == payouts.LinkDeliveryPending {
		if err := s.queueLinkMessage(ctx, q, link); err != nil {
			return "", err
		}
	}
	return link.ID, nil
}

// addressLink makes link the user's, when it is issued to one (their name and contact are its
// payee's unless the request named one), and checks that an sms or email link has somewhere to go.
func addressLink(link *PayoutLinkRecord, user *UserRecord) error {
	if user != nil {
		link.UserID = &user.ID
		if link.Payee == (payouts.Payee{}) {
			link.Payee = payeeOf(&user.User)
		}
	}
	return checkDeliveryContact(link)
}

// reserveLink books a link's reservation, a balance transfer from the app's wallet to escrow,
// pending until the link is claimed (then it completes to the payee) or canceled (then it fails
// and the money returns); on a preflight's book, in its memory alone (dryLedger).
func (b *book) reserveLink(ctx context.Context, transferID string, amount payouts.Money) ([]ledger.Posting, error) {
	app, err := b.app(ctx)
	if err != nil {
		return nil, err
	}
	escrow, err := b.escrow(ctx)
	if err != nil {
		return nil, err
	}
	return b.move(ctx, transferID, []line{{from: app, to: escrow, amount: amount, typ: payouts.TransactionBalance, pending: true}}, nil)
}

// payeeOf is the payee of a link issued to a user who was not named otherwise.
func payeeOf(u *payouts.User) payouts.Payee {
	return payouts.Payee{FirstName: u.FirstName, LastName: u.LastName, Email: u.Email,
		CountryCode: u.PhoneNumber.CountryCode, PhoneNumber: u.PhoneNumber.PhoneNumber}
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
	if err := req.Validate(); err != nil {
		return nil, linkExtras{}, err
	}
	var payee payouts.Payee
	if req.Payee != nil {
		payee = req.Payee.Normalize()
	}
	delivery := req.DeliveryOf()
	steps, redirect := payouts.StepOrder(req.AdditionalSteps)
	if err := s.checkRedirect("additional_steps", redirect); err != nil {
		return nil, linkExtras{}, err
	}
	now := s.now()
	link := &PayoutLinkRecord{ForceCompliance: req.ForceCollectComplianceInfo, Updated: now,
		PayoutLink: payouts.PayoutLink{
			ID: newUnguessableID(), Created: payouts.NewTime(now), Amount: payouts.Money(req.Amount),
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
	out.Link = s.PayoutLinkURL(&out)
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
	if err := payouts.CheckFilterAmount(f.Amount); err != nil {
		return nil, err
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
	err := s.inTx(ctx, func(q *Tx) error {
		l, err := openLink(ctx, q, appID, id, "can no longer be canceled")
		if err != nil {
			return err
		}
		if err := s.settleLink(ctx, q, l, ledger.OpVoid, nil); err != nil {
			return err
		}
		from := l.Status
		l.Status, l.Updated = payouts.LinkCanceled, s.now()
		if err := q.UpdatePayoutLink(ctx, l, from); err != nil {
			return err
		}
		q.linkUpdated(l, from)
		// A message not sent yet no longer goes out.
		return q.DropQueuedMessages(ctx, appID, id, "the payout link was canceled before it went out", l.Updated)
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, id)
}

// openLink reads the app's link id in q, refused when it is claimed or canceled: "This payout
// link is canceled and " + refusal.
func openLink(ctx context.Context, q Queries, appID, id, refusal string) (*PayoutLinkRecord, error) {
	l, err := q.GetPayoutLink(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "payout link")
	}
	if !l.Status.Open() {
		return nil, payouts.Errorf(payouts.EInvalidTransaction, "This payout link is %s and %s.", l.Status, refusal)
	}
	return l, nil
}

// settleLink decides the end of a link's reservation into q's plan: committed to the claiming
// user, or voided.
func (s *Service) settleLink(ctx context.Context, q *Tx, l *PayoutLinkRecord, op ledger.Op, user *UserRecord) error {
	t, err := q.GetTransfer(ctx, l.AppID, *l.TransferID)
	if err != nil {
		return err
	}
	b, err := s.planBook(ctx, q, l.AppID)
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
	q.planTransferUpdate(t, payouts.TransferPending)
	return nil
}
