package service

import (
	"context"
	"crypto/hmac"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"
)

// The use cases of the hosted payee pages that no API endpoint has: the payee's session on a
// flow, identifying the payee by phone, the sandbox background check, and the payout step.

// PayeeSessionLifetime is how long a payee session lasts after the page that issued it; every
// page issues a fresh one, so a payee who keeps going never runs out.
const PayeeSessionLifetime = 30 * time.Minute

// PayeeHandoffLifetime is how long the session a redirect carries in its URL lasts: long enough
// for the browser to follow it, short enough that the URL, kept in the browser's history, opens
// nothing a minute later.
const PayeeHandoffLifetime = 2 * time.Minute

// PayeeSession binds a browser to the payee working through a hosted flow. The pages run inside
// other sites' iframes, where cookies are unreliable, so it travels as a signed token: a
// session in the hidden field of a page's forms, which only a post is accepted with, and a
// short-lived handoff in the URL a post redirects to, which only a page's GET is accepted with.
type PayeeSession struct {
	FlowID string
	UserID string
	// Verified is false between entering a phone number and entering the token texted to it.
	Verified bool
	Expires  time.Time
}

// The stages a payee token is signed with: a session or a handoff, before or after the payee
// entered their code.
const (
	stagePending         = "p"
	stageVerified        = "v"
	stagePendingHandoff  = "hp"
	stageVerifiedHandoff = "hv"
)

// SignPayeeSession returns the token of a session of userID on flowID, for a page's forms, that
// expires PayeeSessionLifetime from now.
func (s *Service) SignPayeeSession(flowID, userID string, verified bool) string {
	return s.signPayee(flowID, userID, verified, false)
}

// SignPayeeHandoff returns the token of a session of userID on flowID, for a redirect's URL, that
// expires PayeeHandoffLifetime from now.
func (s *Service) SignPayeeHandoff(flowID, userID string, verified bool) string {
	return s.signPayee(flowID, userID, verified, true)
}

func (s *Service) signPayee(flowID, userID string, verified, handoff bool) string {
	stage, lifetime := stagePending, PayeeSessionLifetime
	if verified {
		stage = stageVerified
	}
	if handoff {
		stage, lifetime = "h"+stage, PayeeHandoffLifetime
	}
	exp := strconv.FormatInt(s.now().Add(lifetime).Unix(), 10)
	return strings.Join([]string{flowID, userID, stage, exp, s.keyedHash("payee-session", flowID, userID, stage, exp)}, ".")
}

// OpenPayeeSession checks a token from SignPayeeSession and that it is a session on flowID. A
// token that was altered, belongs to another flow, has expired or is a handoff is an
// unauthorized error.
func (s *Service) OpenPayeeSession(token, flowID string) (PayeeSession, error) {
	return s.openPayee(token, flowID, false)
}

// OpenPayeeHandoff checks a token from SignPayeeHandoff as OpenPayeeSession checks a session; a
// session is refused.
func (s *Service) OpenPayeeHandoff(token, flowID string) (PayeeSession, error) {
	return s.openPayee(token, flowID, true)
}

func (s *Service) openPayee(token, flowID string, handoff bool) (PayeeSession, error) {
	invalid := payouts.Errorf(payouts.EUnauthorized, "This page's session is not valid. Start again from your link.")
	parts := strings.Split(token, ".")
	if len(parts) != 5 {
		return PayeeSession{}, invalid
	}
	flow, user, stage, exp, mac := parts[0], parts[1], parts[2], parts[3], parts[4]
	if !hmac.Equal([]byte(mac), []byte(s.keyedHash("payee-session", flow, user, stage, exp))) || flow != flowID {
		return PayeeSession{}, invalid
	}
	var verified bool
	switch stage {
	case stagePending, stagePendingHandoff:
	case stageVerified, stageVerifiedHandoff:
		verified = true
	default:
		return PayeeSession{}, invalid
	}
	if handoff != strings.HasPrefix(stage, "h") {
		return PayeeSession{}, invalid
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return PayeeSession{}, invalid
	}
	sess := PayeeSession{FlowID: flow, UserID: user, Verified: verified, Expires: time.Unix(unix, 0).UTC()}
	if !s.now().Before(sess.Expires) {
		return PayeeSession{}, payouts.Errorf(payouts.EUnauthorized, "Your session expired. Confirm your phone number again to continue.")
	}
	return sess, nil
}

// HostedFlow is a flow as its hosted pages show it: with the name of its app and, when the flow
// pays out a payout link, the link.
type HostedFlow struct {
	FlowRecord
	AppName string
	Link    *PayoutLinkRecord
	// Key is the claim key the flow's URLs carry when its payout link names nobody; empty
	// otherwise.
	Key string
}

// CheckClaimKey refuses a request without the claim key of a flow whose payout link names
// nobody, as if the flow did not exist: the ids are on operators' screens, the key is not.
func (s *Service) CheckClaimKey(hf *HostedFlow, key string) error {
	if hf.Key != "" && !hmac.Equal([]byte(key), []byte(hf.Key)) {
		return notFound("payout link")
	}
	return nil
}

// OpenHostedFlow returns a flow by id alone with what its pages show.
func (s *Service) OpenHostedFlow(ctx context.Context, id string) (*HostedFlow, error) {
	f, err := s.OpenFlow(ctx, id)
	if err != nil {
		return nil, err
	}
	app, err := s.store.GetApp(ctx, f.AppID)
	if err != nil {
		return nil, err
	}
	out := &HostedFlow{FlowRecord: *f, AppName: app.Name}
	if f.PayoutLinkID != nil {
		if out.Link, err = s.OpenPayoutLink(ctx, *f.PayoutLinkID); err != nil {
			return nil, err
		}
		out.Key = s.claimKeyOf(&out.Link.PayoutLink)
	}
	return out, nil
}

// IdentifyPayee finds the payee of a hosted flow by the contact their code goes to, creating the
// user from the names, phone and email given when nobody holds that contact, and sends them a
// verification code where the claim rules say (see payeeContact): the email a link names when it
// names only an email, else the phone. A flow that already belongs to a user (it was issued to
// them, or a payee verified on it first) accepts only that user's number, and creates nobody.
// Attempts are limited per client address (clientAddr, as the transport sees it) and per flow
// and address, codes per flow and address and per app: whoever else holds the flow's URL spends
// only their own address's share and never locks the payee out. A flow that names nobody also
// takes a limited number of different phones; one that names its payee accepts only the payee's
// contact, which that limit never meets.
func (s *Service) IdentifyPayee(ctx context.Context, flowID, clientAddr string, req payouts.CreateUserRequest) (*payouts.User, error) {
	if err := s.allow(ctx, s.limits.identifyPerAddress, clientAddr, "Too many tries from your network. Try again in an hour."); err != nil {
		return nil, err
	}
	f, err := s.OpenHostedFlow(ctx, flowID)
	if err != nil {
		return nil, err
	}
	if err := s.allow(ctx, s.limits.identifyPerFlow, flowAddress(f.ID, clientAddr), "Too many tries on this page. Try again in an hour."); err != nil {
		return nil, err
	}
	p := payouts.Problems{}
	phone := p.Phone("", req.CountryCode, req.PhoneNumber, true)
	if err := p.Err(); err != nil {
		return nil, err
	}
	var user *UserRecord
	if f.UserID != nil {
		if user, err = s.getUser(ctx, s.store, f.AppID, *f.UserID); err != nil {
			return nil, err
		}
		if user.PhoneNumber != phone {
			return nil, payouts.FieldError("phone_number", "is not the number this page was sent to")
		}
	} else {
		if err := namedPayeeMatches(f.Link, phone, req.Email); err != nil {
			return nil, err
		}
		if !namesPayee(f.Link) {
			if err := s.allowPhone(ctx, f.ID, phone); err != nil {
				return nil, err
			}
		}
		byEmail := codeByEmail(f.Link)
		if byEmail {
			req.Email = f.Link.Payee.Email // the address the code goes to, as the link spells it
		}
		if user, err = s.FindOrCreatePayee(ctx, f.AppID, byEmail, req); err != nil {
			return nil, err
		}
	}
	return &user.User, s.sendPayeeToken(ctx, f, clientAddr, user)
}

// flowAddress is the key of the limits counted per flow and client address.
func flowAddress(flowID, clientAddr string) string { return flowID + " " + clientAddr }

// allowPhone counts phone among the different numbers tried on a flow that names nobody, and
// answers too-many-requests once the flow has had its fill of them; a number already tried in
// the window is not counted again.
func (s *Service) allowPhone(ctx context.Context, flowID string, phone payouts.Phone) error {
	if tries, err := s.limits.phoneTries.Add(ctx, flowID+" "+phone.String(), s.now()); err != nil || tries > 1 {
		return err
	}
	return s.allow(ctx, s.limits.phonesPerFlow, flowID, "Too many different numbers were tried on this page. Try again in an hour.")
}

// ResendPayeeToken sends the payee of a hosted flow a new code, as IdentifyPayee did, within the
// limit of codes per flow and client address.
func (s *Service) ResendPayeeToken(ctx context.Context, flowID, clientAddr, userID string) error {
	f, err := s.OpenHostedFlow(ctx, flowID)
	if err != nil {
		return err
	}
	user, err := s.getUser(ctx, s.store, f.AppID, userID)
	if err != nil {
		return err
	}
	return s.sendPayeeToken(ctx, f, clientAddr, user)
}

// sendPayeeToken sends a code for a hosted flow, within the limit per flow and client address.
func (s *Service) sendPayeeToken(ctx context.Context, f *HostedFlow, clientAddr string, user *UserRecord) error {
	if err := s.allow(ctx, s.limits.sendsPerFlow, flowAddress(f.ID, clientAddr), "Too many codes were sent for this page. Try again in an hour."); err != nil {
		return err
	}
	return s.sendToken(ctx, f.AppID, user.ID, payeeContact(f.Link, user), codeForClaim)
}

// VerifyPayee checks the code a payee of a hosted flow received. The first payee verified on a
// flow that belongs to nobody yet binds it: nobody else can verify on it after them.
func (s *Service) VerifyPayee(ctx context.Context, flowID, userID, token string) error {
	f, err := s.OpenFlow(ctx, flowID)
	if err != nil {
		return err
	}
	if f.UserID != nil && *f.UserID != userID {
		return errFlowTaken
	}
	if err := s.VerifyUser(ctx, f.AppID, userID, payouts.VerifyUserRequest{Token: token}); err != nil {
		return err
	}
	return s.inTx(ctx, func(q *Tx) error {
		f, err := q.FlowByID(ctx, flowID)
		if err != nil {
			return orNotFound(err, "flow")
		}
		if err := s.stillNamed(ctx, q, f, userID); err != nil {
			return err
		}
		switch {
		case f.UserID == nil:
			before := f.Flow
			f.UserID = &userID
			return q.updateFlow(ctx, before, f)
		case *f.UserID != userID:
			return errFlowTaken
		}
		return nil
	})
}

// stillNamed refuses userID on a flow whose payout link no longer names them: its payee was
// corrected (CorrectPayoutLinkContact) after they identified with the contact it named before,
// so the code they got proves the old contact, not the one the link names now.
func (s *Service) stillNamed(ctx context.Context, q Queries, f *FlowRecord, userID string) error {
	if f.PayoutLinkID == nil {
		return nil
	}
	l, err := q.PayoutLinkByID(ctx, *f.PayoutLinkID)
	if err != nil {
		return err
	}
	user, err := s.getUser(ctx, q, f.AppID, userID)
	if err != nil {
		return err
	}
	if namedPayeeMatches(l, user.PhoneNumber, user.Email) != nil {
		return payouts.Errorf(payouts.EUnauthorized, "This payout link was sent to someone else.")
	}
	return nil
}

var errFlowTaken = payouts.Errorf(payouts.EUnauthorized, "This flow belongs to someone else.")

// keepDigits drops the spaces, dashes and brackets people type in phone numbers.
func keepDigits(r rune) rune {
	if r >= '0' && r <= '9' {
		return r
	}
	if r == ' ' || r == '-' || r == '(' || r == ')' || r == '.' {
		return -1
	}
	return r // anything else stays, so that validation names the mistake
}

// BackgroundCheckConsent is the payee's signed consent to a background check.
type BackgroundCheckConsent struct {
	Consent bool
	Name    string // the payee's full legal name, as a signature
}

// ConsentToBackgroundCheck runs the sandbox background check of a hosted flow on the payee's
// signed consent and completes the step; the flow's completed steps are its record. The sandbox
// check clears everyone who consents.
func (s *Service) ConsentToBackgroundCheck(ctx context.Context, flowID, userID string, c BackgroundCheckConsent) error {
	p := payouts.Problems{}
	if !c.Consent {
		p.Add("consent", "is needed to run the background check")
	}
	p.Required("name", c.Name)
	if err := p.Err(); err != nil {
		return err
	}
	_, err := s.CompleteFlowStep(ctx, flowID, userID, payouts.StepBackgroundCheck)
	return err
}

// ConfirmPayoutMethods completes a manage-payouts or manage-payments step for a payee who
// already has a payout method saved.
func (s *Service) ConfirmPayoutMethods(ctx context.Context, flowID, userID, step string) error {
	if step != payouts.StepManagePayouts && step != payouts.StepManagePayments {
		return payouts.FieldError("step", "is not a step that manages payout methods")
	}
	f, err := s.OpenFlow(ctx, flowID)
	if err != nil {
		return err
	}
	methods, err := s.ListPayoutMethods(ctx, f.AppID, userID)
	if err != nil {
		return err
	}
	if len(methods) == 0 {
		return payouts.Errorf(payouts.EUserInfoMissing, "Add a payout method to continue.")
	}
	_, err = s.CompleteFlowStep(ctx, flowID, userID, step)
	return err
}

// PayOutFlow is the payout step of a hosted flow: it claims the flow's payout link for the
// payee, if the flow has one, and pays the link's amount out to the chosen method; the payee's
// whole withdrawable balance goes only when they ask for it (wholeWallet), or when the flow pays
// out no link. It completes the step. A payout the rail refuses at once leaves the step open, the
// money back in the payee's wallet, so they can choose another method; a later try skips the
// claim the earlier one made.
func (s *Service) PayOutFlow(ctx context.Context, flowID, userID, methodID string, wholeWallet bool) (*payouts.Transfer, error) {
	f, err := s.OpenFlow(ctx, flowID)
	if err != nil {
		return nil, err
	}
	if NextStep(&f.Flow) != payouts.StepPayout {
		return nil, payouts.Errorf(payouts.EInvalidTransaction, "Finish the earlier steps before the payout.")
	}
	if f.UserID == nil || *f.UserID != userID {
		return nil, errFlowTaken // a verified payee has bound the flow (VerifyPayee)
	}
	if methodID == "" {
		return nil, payouts.FieldError("account_id", "choose where to send the money")
	}
	var feeParty payouts.FeeParty
	var amount payouts.Money // zero: the whole withdrawable balance
	linkID := ""
	if f.PayoutLinkID != nil {
		l, err := s.OpenPayoutLink(ctx, *f.PayoutLinkID)
		if err != nil {
			return nil, err
		}
		linkID, feeParty = l.ID, l.PayoutFeeParty
		if !wholeWallet {
			amount = l.Amount
		}
		claimedByUser := l.Status == payouts.LinkClaimed && l.ClaimedUserID != nil && *l.ClaimedUserID == userID
		if !claimedByUser {
			if _, err := s.ClaimPayoutLink(ctx, l.ID, userID); err != nil {
				return nil, err
			}
		}
	}
	t, err := s.Withdraw(ctx, f.AppID, userID, methodID, amount, feeParty, linkID)
	if err != nil {
		return nil, err
	}
	if t.Status == payouts.TransferFailed {
		return nil, payouts.FieldError("account_id", "the payment was refused: "+t.FailureReason+"; choose another method")
	}
	if _, err := s.CompleteFlowStep(ctx, flowID, userID, payouts.StepPayout); err != nil {
		return nil, err
	}
	return t, nil
}
