package service

import (
	"context"
	"crypto/hmac"
	"errors"
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
	// UserID is the payee; empty in a session of the flow's email code (ByEmail).
	UserID string
	// ByEmail marks a session of a flow whose code goes to its link's email (CodeByEmail) before
	// the code named a user: no user is found or made before the email is proven.
	ByEmail bool
	// EmailTag names, in a ByEmail session, the address its code goes to (emailTag): once a
	// link's payee is corrected, a session of the address it named before proves nothing.
	EmailTag string
	// Verified is false between asking for a code and entering it. A verified ByEmail session
	// proved the email and found nobody holding it: the payee gives their details next.
	Verified bool
	Expires  time.Time
}

// The stages a payee token is signed with: before or after the payee entered their code, of a
// user or of a flow's email code (ByEmail); a handoff's stage has the prefix stageHandoff.
const (
	stagePending       = "p"
	stageVerified      = "v"
	stageEmailPending  = "ep"
	stageEmailVerified = "ev"
	stageHandoff       = "h"
)

// SignPayeeSession returns the token of sess, for a page's forms, that expires
// PayeeSessionLifetime from now.
func (s *Service) SignPayeeSession(sess PayeeSession) string {
	return s.signPayee(sess, false)
}

// SignPayeeHandoff returns the token of sess, for a redirect's URL, that expires
// PayeeHandoffLifetime from now.
func (s *Service) SignPayeeHandoff(sess PayeeSession) string {
	return s.signPayee(sess, true)
}

func (s *Service) signPayee(sess PayeeSession, handoff bool) string {
	stage, lifetime := stagePending, PayeeSessionLifetime
	switch {
	case sess.ByEmail && sess.Verified:
		stage = stageEmailVerified
	case sess.ByEmail:
		stage = stageEmailPending
	case sess.Verified:
		stage = stageVerified
	}
	if handoff {
		stage, lifetime = stageHandoff+stage, PayeeHandoffLifetime
	}
	who := sess.UserID
	if sess.ByEmail {
		who = emailTagMark + sess.EmailTag
	}
	exp := strconv.FormatInt(s.now().Add(lifetime).Unix(), 10)
	return strings.Join([]string{sess.FlowID, who, stage, exp, s.keyedHash("payee-session", sess.FlowID, who, stage, exp)}, ".")
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
	invalid := errSessionInvalid
	parts := strings.Split(token, ".")
	if len(parts) != 5 {
		return PayeeSession{}, invalid
	}
	flow, user, stage, exp, mac := parts[0], parts[1], parts[2], parts[3], parts[4]
	if !hmac.Equal([]byte(mac), []byte(s.keyedHash("payee-session", flow, user, stage, exp))) || flow != flowID {
		return PayeeSession{}, invalid
	}
	base, isHandoff := strings.CutPrefix(stage, stageHandoff)
	if handoff != isHandoff {
		return PayeeSession{}, invalid
	}
	sess := PayeeSession{FlowID: flow, UserID: user}
	switch base {
	case stagePending:
	case stageVerified:
		sess.Verified = true
	case stageEmailPending:
		sess.ByEmail = true
	case stageEmailVerified:
		sess.ByEmail, sess.Verified = true, true
	default:
		return PayeeSession{}, invalid
	}
	tag, isTag := strings.CutPrefix(user, emailTagMark)
	switch {
	case sess.ByEmail && isTag && tag != "":
		sess.UserID, sess.EmailTag = "", tag
	case sess.ByEmail || isTag || user == "":
		return PayeeSession{}, invalid
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return PayeeSession{}, invalid
	}
	sess.Expires = time.Unix(unix, 0).UTC()
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

// IdentifyPayee starts proving who the payee of a hosted flow is and returns the session they go
// on with. When the flow's code goes to its link's email (CodeByEmail), nothing typed is read:
// the code goes to that email and who holds it is looked up only once it is proven
// (VerifyPayee). Otherwise it finds the payee by the phone their code goes to, creating the user
// from the names, phone and email given when nobody holds that phone, and sends the code where
// the claim rules say (see payeeContact). A flow that already belongs to a user accepts only
// that user's number, and creates nobody.
// Attempts are limited per client address (clientAddr, as the transport sees it) and per flow
// and address, codes per flow and address and per app: whoever else holds the flow's URL spends
// only their own address's share and never locks the payee out. A flow that names nobody also
// takes a limited number of different phones; one that names its payee accepts only the payee's
// contact, which that limit never meets.
func (s *Service) IdentifyPayee(ctx context.Context, flowID, clientAddr string, req payouts.CreateUserRequest) (PayeeSession, error) {
	f, err := s.openIdentify(ctx, flowID, clientAddr)
	if err != nil {
		return PayeeSession{}, err
	}
	if CodeByEmail(f.Link) {
		sess := PayeeSession{FlowID: f.ID, ByEmail: true, EmailTag: s.emailTag(f.ID, f.Link.Payee.Email)}
		return sess, s.sendPayeeToken(ctx, f, clientAddr, sess)
	}
	p := payouts.Problems{}
	phone := p.Phone("", req.CountryCode, req.PhoneNumber, true)
	if err := p.Err(); err != nil {
		return PayeeSession{}, err
	}
	var user *UserRecord
	if f.UserID != nil {
		if user, err = s.getUser(ctx, s.store, f.AppID, *f.UserID); err != nil {
			return PayeeSession{}, err
		}
		if user.PhoneNumber != phone {
			return PayeeSession{}, payouts.FieldError("phone_number", "is not the number this page was sent to")
		}
	} else {
		if err := namedPayeeMatches(f.Link, phone); err != nil {
			return PayeeSession{}, err
		}
		if !namesPayee(f.Link) {
			if err := s.allowPhone(ctx, f.ID, phone); err != nil {
				return PayeeSession{}, err
			}
		}
		if user, err = s.FindOrCreatePayee(ctx, f.AppID, req); err != nil {
			return PayeeSession{}, err
		}
	}
	sess := PayeeSession{FlowID: f.ID, UserID: user.ID}
	return sess, s.sendPayeeToken(ctx, f, clientAddr, sess)
}

// openIdentify opens a flow for a payee saying who they are, within the limits of tries per
// client address and per flow and address.
func (s *Service) openIdentify(ctx context.Context, flowID, clientAddr string) (*HostedFlow, error) {
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
	return f, nil
}

// GivePayeeDetails makes the payee of a flow whose email code they entered and nobody held
// (a verified ByEmail session) a user, from the names and phone they give, the phone unproven,
// and binds the flow to them. The phone is never looked up: a number on another user's record
// finds nobody. If someone proved the email meanwhile, the flow binds to them instead, as the
// code would have. It counts against the identify limits.
func (s *Service) GivePayeeDetails(ctx context.Context, clientAddr string, sess PayeeSession, req payouts.CreateUserRequest) (PayeeSession, error) {
	if !sess.ByEmail || !sess.Verified {
		return PayeeSession{}, errSessionInvalid
	}
	f, err := s.openIdentify(ctx, sess.FlowID, clientAddr)
	if err != nil {
		return PayeeSession{}, err
	}
	if err := s.ofLinkEmail(sess, f); err != nil {
		return PayeeSession{}, err
	}
	p := payouts.Problems{}
	p.Phone("", req.CountryCode, req.PhoneNumber, true)
	if err := p.Err(); err != nil {
		return PayeeSession{}, err
	}
	req.Email = f.Link.Payee.Email // the address the code proved, as the link spells it
	rec, err := s.newUser(f.AppID, req, unprovenPhone)
	if err != nil {
		return PayeeSession{}, err
	}
	out := PayeeSession{FlowID: f.ID, Verified: true}
	err = s.inTx(ctx, func(q *Tx) error {
		user, err := s.payeeOfEmail(ctx, q, f)
		if err != nil {
			return err
		}
		if user == nil {
			user = rec
			if err := q.createUser(ctx, rec); err != nil {
				return err
			}
		}
		out.UserID = user.ID
		return q.bindPayee(ctx, f.ID, user)
	})
	if payouts.ErrorCode(err) == payouts.EEmailExists {
		return PayeeSession{}, payouts.Errorf(payouts.EEmailExists, "This email is on another account here; ask the sender for a link made for that account.")
	}
	if err != nil {
		return PayeeSession{}, err
	}
	return out, nil
}

// payeeOfEmail is the user a proven code to the email of f's link makes the payee: the user the
// flow already belongs to, else the app's user who proved that email, else nil; a link whose
// payee was corrected since f was read is refused.
func (s *Service) payeeOfEmail(ctx context.Context, q *Tx, f *HostedFlow) (*UserRecord, error) {
	flow, err := q.FlowByID(ctx, f.ID)
	if err != nil {
		return nil, orNotFound(err, "flow")
	}
	if flow.UserID != nil {
		return s.getUser(ctx, q, f.AppID, *flow.UserID)
	}
	// The link as this transaction reads it: a correction committed since f was read moved the
	// code to another address, which this one's proof does not stand for.
	if l, err := q.PayoutLinkByID(ctx, *flow.PayoutLinkID); err != nil {
		return nil, err
	} else if !CodeByEmail(l) || !strings.EqualFold(l.Payee.Email, f.Link.Payee.Email) {
		return nil, errSessionInvalid
	}
	u, err := q.FindUserByProvenEmail(ctx, f.AppID, strings.TrimSpace(f.Link.Payee.Email))
	if errors.Is(err, ErrNoRecord) {
		return nil, nil
	}
	return u, err
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

// ResendPayeeToken sends the payee of session sess a new code, as IdentifyPayee did, within the
// limit of codes per flow and client address.
func (s *Service) ResendPayeeToken(ctx context.Context, clientAddr string, sess PayeeSession) error {
	f, err := s.OpenHostedFlow(ctx, sess.FlowID)
	if err != nil {
		return err
	}
	return s.sendPayeeToken(ctx, f, clientAddr, sess)
}

// sendPayeeToken sends a code for a hosted flow, within the limit per flow and client address:
// for a ByEmail session, to the link's email, kept under the flow and that email
// (flowEmailCode); otherwise to the session's user where payeeContact says.
func (s *Service) sendPayeeToken(ctx context.Context, f *HostedFlow, clientAddr string, sess PayeeSession) error {
	if sess.ByEmail != CodeByEmail(f.Link) {
		return errSessionInvalid
	}
	if sess.ByEmail {
		if err := s.ofLinkEmail(sess, f); err != nil {
			return err
		}
	}
	if err := s.allow(ctx, s.limits.sendsPerFlow, flowAddress(f.ID, clientAddr), "Too many codes were sent for this page. Try again in an hour."); err != nil {
		return err
	}
	if sess.ByEmail {
		return s.sendCode(ctx, f.AppID, flowEmailCode(f), "", payeeContact(f.Link, nil), codeForClaim)
	}
	user, err := s.getUser(ctx, s.store, f.AppID, sess.UserID)
	if err != nil {
		return err
	}
	return s.sendToken(ctx, f.AppID, user.ID, payeeContact(f.Link, user), codeForClaim)
}

// emailTagMark starts the payee part of a ByEmail session's token, which holds its EmailTag
// where another session's holds a user's id.
const emailTagMark = "~"

// emailTag is what a ByEmail session of flowID names the address its code goes to by: a keyed
// hash, so that the token, which travels in URLs, does not carry the address.
func (s *Service) emailTag(flowID, email string) string {
	return s.keyedHash("payee-email", flowID, emailKey(email))
}

// ofLinkEmail refuses a ByEmail session unless f's link still sends its code to the address the
// session was opened for: a link whose payee was corrected (CorrectPayoutLinkContact) is proven
// by the new address's code alone.
func (s *Service) ofLinkEmail(sess PayeeSession, f *HostedFlow) error {
	if !sess.ByEmail || !CodeByEmail(f.Link) || !hmac.Equal([]byte(sess.EmailTag), []byte(s.emailTag(f.ID, f.Link.Payee.Email))) {
		return errSessionInvalid
	}
	return nil
}

// flowEmailCode is the key the code to the email of f's link is kept under, in place of a
// user's id: the flow and the address, so that it proves nothing on another flow or for
// another address.
func flowEmailCode(f *HostedFlow) string {
	return "flow " + f.ID + " " + emailKey(f.Link.Payee.Email)
}

// emailKey is an address as the keys of a flow's email code compare it: trimmed, in lower case.
func emailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// VerifyPayee checks the code the payee of session sess received and returns their verified
// session. The first payee verified on a flow that belongs to nobody yet binds it: nobody else
// can verify on it after them. A ByEmail session's code proves the link's email: the flow binds
// to the user it belongs to or who proved that email; with neither, the session goes on
// without a user, to give the payee's details (GivePayeeDetails).
func (s *Service) VerifyPayee(ctx context.Context, sess PayeeSession, token string) (PayeeSession, error) {
	if sess.ByEmail {
		return s.verifyPayeeEmail(ctx, sess, token)
	}
	f, err := s.OpenFlow(ctx, sess.FlowID)
	if err != nil {
		return PayeeSession{}, err
	}
	if f.UserID != nil && *f.UserID != sess.UserID {
		return PayeeSession{}, errFlowTaken
	}
	if err := s.VerifyUser(ctx, f.AppID, sess.UserID, payouts.VerifyUserRequest{Token: token}); err != nil {
		return PayeeSession{}, err
	}
	err = s.inTx(ctx, func(q *Tx) error {
		if err := s.stillNamed(ctx, q, f, sess.UserID); err != nil {
			return err
		}
		return q.bindFlow(ctx, f.ID, sess.UserID)
	})
	if err != nil {
		return PayeeSession{}, err
	}
	return PayeeSession{FlowID: f.ID, UserID: sess.UserID, Verified: true}, nil
}

func (s *Service) verifyPayeeEmail(ctx context.Context, sess PayeeSession, token string) (PayeeSession, error) {
	req := payouts.VerifyUserRequest{Token: token}
	if err := req.Validate(); err != nil {
		return PayeeSession{}, err
	}
	f, err := s.OpenHostedFlow(ctx, sess.FlowID)
	if err != nil {
		return PayeeSession{}, err
	}
	if err := s.ofLinkEmail(sess, f); err != nil {
		return PayeeSession{}, err
	}
	out := PayeeSession{FlowID: f.ID, ByEmail: true, EmailTag: sess.EmailTag, Verified: true}
	var wrong error // the answer to a wrong code, returned after the attempt is committed
	err = s.inTx(ctx, func(q *Tx) error {
		if wrong, err = s.spendCode(ctx, q, f.AppID, flowEmailCode(f), strings.TrimSpace(req.Token)); err != nil || wrong != nil {
			return err
		}
		user, err := s.payeeOfEmail(ctx, q, f)
		if err != nil || user == nil {
			return err
		}
		out = PayeeSession{FlowID: f.ID, UserID: user.ID, Verified: true}
		return q.bindPayee(ctx, f.ID, user)
	})
	if err == nil {
		err = wrong
	}
	if err != nil {
		return PayeeSession{}, err
	}
	return out, nil
}

// bindPayee marks user verified, a contact of theirs proven, and binds the flow flowID to them.
func (q *Tx) bindPayee(ctx context.Context, flowID string, user *UserRecord) error {
	if err := q.markVerified(ctx, user); err != nil {
		return err
	}
	return q.bindFlow(ctx, flowID, user.ID)
}

// bindFlow makes a flow that belongs to nobody yet the flow of userID; a flow of another user is
// refused.
func (q *Tx) bindFlow(ctx context.Context, flowID, userID string) error {
	f, err := q.FlowByID(ctx, flowID)
	if err != nil {
		return orNotFound(err, "flow")
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
}

var errSessionInvalid = payouts.Errorf(payouts.EUnauthorized, "This page's session is not valid. Start again from your link.")

// stillNamed refuses userID on a flow whose payout link no longer names them: its payee was
// corrected (CorrectPayoutLinkContact) after they identified with the contact it named before,
// so the code they got proves the old contact, not the one the link names now. A link whose code
// now goes to an email is proven by that email's code alone (verifyPayeeEmail).
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
	if CodeByEmail(l) || namedPayeeMatches(l, user.PhoneNumber) != nil {
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
