package service

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"
)

// The message outbox. Every email and text the service sends (a payout link, a one-time code) is
// an OutboundMessageRecord written in the transaction that caused it, so a message exists exactly
// when its cause committed. Workers lease due messages in one transaction, hand them to the
// channel's provider outside any transaction, and record the outcome in another: sent; queued
// again after a transient failure, with exponential backoff (webhookRetryDelay); or failed, for a
// refusal the provider means for good (ErrUndeliverable) or after messageMaxAttempts tries, which
// marks a payout link delivery_failed, with its event and webhook.
//
// Sent twice? A message goes to its provider again only when a worker leased it and recorded no
// outcome within messageLease: it died, or hung, between the lease and the record. Each such
// crash can repeat the message once, and crashes count as tries, so a message reaches its
// provider at most messageMaxAttempts times. Over SMTP every try carries the same Message-ID
// (MessageKey), which mail systems use to drop a duplicate; Twilio's Messages API takes no
// idempotency key, so a crash in that window can text the payee twice.
const (
	messageLease       = time.Minute
	messageMaxAttempts = 6
)

// ErrUndeliverable is wrapped by a notifier's error when the provider refused the message for
// good (an SMTP 5xx, a Twilio number that cannot receive): it is not tried again.
var ErrUndeliverable = errors.New("undeliverable")

// OutboundMessageRecord is a message in the outbox. Subject, Body and HTML are sealed with the
// service's key (they hold claim links and codes), base64.
type OutboundMessageRecord struct {
	ID           int64
	AppID        string
	UserID       string // "" when the payee is no user yet
	PayoutLinkID string // the link it delivers, if any
	Purpose      payouts.MessagePurpose
	Channel      string
	To           string
	Subject      string
	Body         string
	HTML         string
	Status       payouts.MessageStatus
	Attempts     int
	NextAttempt  time.Time // the lease while a worker sends it, then when it is tried again
	Provider     string    // the provider that took it (smtp, twilio, sandbox)
	Error        string
	Created      time.Time
	Updated      time.Time
}

// MessageKey is the stable name of an outbox message, the same on every try: the SMTP
// Message-ID's local part, and the id in a status callback's URL.
func MessageKey(id int64) string { return "msg_" + strconv.FormatInt(id, 10) }

// Routes name the provider each channel's messages go to (sandbox, smtp, twilio): what the
// outbox records and what picks a status callback's verifier.
type Routes map[string]string

// MessageStatusHook verifies a provider's delivery report about a message it took, posted to
// the URL the message carried (Message.StatusCallback), and says what it reports.
type MessageStatusHook interface {
	// Report verifies a report posted to url with header and body. A report that fails
	// verification is a *RailUnverified error. ok is false for a report of no final outcome
	// (queued, sending, sent): nothing to record.
	Report(url string, header http.Header, body []byte) (report MessageReport, ok bool, err error)
}

// MessageReport is a provider's final word on a message: delivered, or failed and why.
type MessageReport struct {
	Delivered bool
	Reason    string
}

// sealedText seals a part of a message for the outbox.
func (s *Service) sealedText(appID, text string) string {
	if text == "" {
		return ""
	}
	return base64.StdEncoding.EncodeToString(s.seal([]byte(text), aadOf(SealedMessage, appID)))
}

func (s *Service) openText(appID, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", err
	}
	text, err := s.open(b, aadOf(SealedMessage, appID))
	return string(text), err
}

// queueMessage records m in the outbox in q, the transaction of its cause, with the ids of rec,
// after the limits against abuse: a phone number is texted only in a country configured
// (Config.SMSCountries), a field error on field otherwise; and the messages of a recipient, an
// app and a destination country are counted in windows (Limits), too many a 429.
func (s *Service) queueMessage(ctx context.Context, q Queries, m Message, rec OutboundMessageRecord, field string) (*OutboundMessageRecord, error) {
	if err := s.checkCountry(m, field); err != nil {
		return nil, err
	}
	now := s.now()
	for _, l := range s.messageLimits(m) {
		n, _, err := q.CountRate(ctx, l.key, now, l.rate.Per)
		if err != nil {
			return nil, err
		}
		if n > l.rate.Max {
			return nil, payouts.Errorf(payouts.ETooManyRequests, "%s", l.message)
		}
	}
	rec.AppID, rec.Channel, rec.To = m.AppID, m.Channel, m.To
	rec.Subject, rec.Body, rec.HTML = s.sealedText(m.AppID, m.Subject), s.sealedText(m.AppID, m.Body), s.sealedText(m.AppID, m.HTML)
	rec.Status, rec.NextAttempt, rec.Created, rec.Updated = payouts.MessageQueued, now, now, now
	rec.Provider = s.cfg.Routes[m.Channel]
	if err := q.CreateOutboundMessage(ctx, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// checkCountry refuses a text or call to a country not configured.
func (s *Service) checkCountry(m Message, field string) error {
	if m.Channel == "email" || len(s.cfg.SMSCountries) == 0 || slices.Contains(s.cfg.SMSCountries, m.Country) {
		return nil
	}
	return payouts.FieldError(field, "is in a country (+"+m.Country+") this service does not text; send the link by email or as a link")
}

type messageLimit struct {
	key     string
	rate    Rate
	message string
}

// messageLimits are the windows a message counts in: its recipient's, its app's, and for a text
// its destination country's (across apps: SMS pumping aims at a country's expensive numbers).
func (s *Service) messageLimits(m Message) []messageLimit {
	l := s.cfg.Limits
	out := []messageLimit{
		{"msg-recipient:" + m.Channel + " " + m.To, l.MessagesPerRecipient, "Too many messages were sent to this recipient; try again in an hour."},
		{"msg-app:" + m.AppID, l.MessagesPerApp, "This app has sent too many messages; try again in an hour."},
	}
	if m.Channel != "email" {
		out = append(out, messageLimit{"msg-country:" + m.Country, l.TextsPerCountry,
			"Too many texts went to +" + m.Country + " numbers lately; try again in an hour, or send by email."})
	}
	return out
}

// queueLinkMessage records the message delivering link, in the transaction that made it or asked
// to send it again.
func (s *Service) queueLinkMessage(ctx context.Context, q Queries, l *PayoutLinkRecord) error {
	app, err := q.GetApp(ctx, l.AppID)
	if err != nil {
		return err
	}
	field := "payee.email"
	if l.Delivery.Method == payouts.DeliverySMS {
		field = "payee.phone_number"
	}
	rec := OutboundMessageRecord{PayoutLinkID: l.ID, Purpose: payouts.PurposePayoutLink}
	if l.UserID != nil {
		rec.UserID = *l.UserID
	}
	_, err = s.queueMessage(ctx, q, linkMessage(l, app.Name, s.PayoutLinkURL(&l.PayoutLink)), rec, field)
	return err
}

// DeliverDue sends up to max due messages of the outbox and returns how many it tried.
func (s *Service) DeliverDue(ctx context.Context, max int) (int, error) {
	return s.sendMessages(ctx, 0, max)
}

// sendQueued sends the message id now, if it is still due (no worker took it first), and
// returns it as recorded after the try; nil when it was not due.
func (s *Service) sendQueued(ctx context.Context, id int64) (*OutboundMessageRecord, error) {
	var out *OutboundMessageRecord
	_, err := s.sendMessagesThen(ctx, id, 1, func(m *OutboundMessageRecord) { out = m })
	return out, err
}

func (s *Service) sendMessages(ctx context.Context, id int64, max int) (int, error) {
	return s.sendMessagesThen(ctx, id, max, func(*OutboundMessageRecord) {})
}

// sendMessagesThen leases up to max due messages (only id, when not 0), sends each outside any
// transaction and records its outcome, then hands it to done.
func (s *Service) sendMessagesThen(ctx context.Context, id int64, max int, done func(*OutboundMessageRecord)) (int, error) {
	var due []OutboundMessageRecord
	err := s.store.InTx(ctx, func(q Queries) error {
		now := s.now()
		var err error
		due, err = q.ClaimDueMessages(ctx, now, now.Add(messageLease), id, max)
		return err
	})
	if err != nil {
		return 0, err
	}
	for i := range due {
		m := &due[i]
		sendErr := s.sendOne(ctx, m)
		if err := s.recordSend(ctx, m, sendErr); err != nil {
			return i, err
		}
		done(m)
	}
	return len(due), nil
}

// sendOne opens a leased message and hands it to the notifier, within half the lease so that
// its outcome is recorded before another worker may take it.
func (s *Service) sendOne(ctx context.Context, rec *OutboundMessageRecord) error {
	m := Message{Key: MessageKey(rec.ID), AppID: rec.AppID, Channel: rec.Channel, To: rec.To}
	var err error
	for _, part := range []struct {
		sealed string
		out    *string
	}{{rec.Subject, &m.Subject}, {rec.Body, &m.Body}, {rec.HTML, &m.HTML}} {
		if *part.out, err = s.openText(rec.AppID, part.sealed); err != nil {
			return errors.Join(ErrUndeliverable, err)
		}
	}
	if rec.PayoutLinkID != "" {
		l, err := s.store.GetPayoutLink(ctx, rec.AppID, rec.PayoutLinkID)
		if err != nil {
			return err
		}
		if !l.Status.Open() {
			return fmt.Errorf("%w: the payout link was %s before it went out", ErrUndeliverable, l.Status)
		}
	}
	app, err := s.store.GetApp(ctx, rec.AppID)
	if err != nil {
		return err
	}
	m.AppName, m.ReplyTo = app.Name, replyTo(app)
	if rec.Channel != "email" {
		if _, ok := s.cfg.MessageStatus[rec.Provider]; ok {
			m.StatusCallback = s.messageStatusURL(rec.Provider, rec.ID)
		}
	}
	sendCtx, cancel := context.WithTimeout(ctx, messageLease/2)
	defer cancel()
	return s.notifier.Send(sendCtx, m)
}

// replyTo is where replies to an app's email go: the address its metadata names as
// reply_to_email, if any.
func replyTo(app *AppRecord) string {
	var md struct {
		ReplyTo string `json:"reply_to_email"`
	}
	if json.Unmarshal(app.Metadata, &md) != nil || !payouts.ValidEmail(md.ReplyTo) {
		return ""
	}
	return md.ReplyTo
}

// messageStatusURL is where provider reports on the message id: the API's, under the public URL.
func (s *Service) messageStatusURL(provider string, id int64) string {
	return s.cfg.PublicURL + "/api/v2/message-status/" + provider + "/" + MessageKey(id)
}

// recordSend records what became of a try and, for a payout link's message, the link's delivery.
func (s *Service) recordSend(ctx context.Context, m *OutboundMessageRecord, sendErr error) error {
	now := s.now()
	m.Updated, m.Error = now, ""
	switch {
	case sendErr == nil:
		m.Status = payouts.MessageSent
	case errors.Is(sendErr, ErrUndeliverable) || m.Attempts >= messageMaxAttempts:
		m.Status, m.Error = payouts.MessageFailed, sendErr.Error()
	default:
		m.Status, m.NextAttempt, m.Error = payouts.MessageQueued, now.Add(webhookRetryDelay(m.Attempts)), sendErr.Error()
	}
	if sendErr != nil {
		s.log.Warn("message not sent", "message", m.ID, "channel", m.Channel, "status", m.Status, "err", sendErr)
	}
	return s.inTx(ctx, func(q *Tx) error {
		if err := q.UpdateOutboundMessage(ctx, m); err != nil {
			return err
		}
		return s.linkDelivery(ctx, q, m)
	})
}

// linkDelivery moves the payout link a message delivers to what became of the message: a
// message sent makes a pending link delivered; one failed makes it delivery_failed, unless it
// was claimed or canceled meanwhile. A message to an address the link no longer names (its payee
// was corrected while the message was on its way) says nothing of the link.
func (s *Service) linkDelivery(ctx context.Context, q *Tx, m *OutboundMessageRecord) error {
	if m.PayoutLinkID == "" {
		return nil
	}
	l, err := q.GetPayoutLink(ctx, m.AppID, m.PayoutLinkID)
	if err != nil {
		return err
	}
	if m.Channel != string(l.Delivery.Method) || m.To != linkRecipient(l) {
		return nil
	}
	next := payouts.LinkDelivered
	if m.Status == payouts.MessageFailed {
		next = payouts.LinkDeliveryFailed
	} else if l.Status != payouts.LinkDeliveryPending {
		return nil
	}
	if !l.Status.CanBecome(next) {
		return nil
	}
	from := l.Status
	l.Status, l.Updated = next, m.Updated
	if err := q.UpdatePayoutLink(ctx, l, from); err != nil {
		return err
	}
	q.linkUpdated(l, from)
	return nil
}

// ReceiveMessageStatus verifies a provider's report on the message named key (MessageKey),
// posted to its status callback URL, and records a final one: delivered, or failed (which
// fails its payout link's delivery). A provider not configured, or a message it did not take,
// is not-found; a report that fails verification is unauthorized and changes nothing.
func (s *Service) ReceiveMessageStatus(ctx context.Context, provider, key string, header http.Header, body []byte) error {
	hook, ok := s.cfg.MessageStatus[provider]
	digits, named := strings.CutPrefix(key, "msg_")
	n, err := strconv.ParseInt(digits, 10, 64)
	if !ok || !named || err != nil || n < 1 {
		return notFound("message")
	}
	report, final, err := hook.Report(s.messageStatusURL(provider, n), header, body)
	var unverified *RailUnverified
	if errors.As(err, &unverified) {
		s.log.Warn("message status report refused", "provider", provider, "message", key, "reason", unverified.Reason)
		return payouts.Errorf(payouts.EUnauthorized, "The report's signature does not verify.")
	}
	if err != nil || !final {
		return err
	}
	return s.inTx(ctx, func(q *Tx) error {
		m, err := q.GetOutboundMessage(ctx, n)
		if err != nil || m.Provider != provider {
			return notFound("message")
		}
		if m.Status == payouts.MessageDelivered || m.Status == payouts.MessageFailed {
			return nil // its final word is recorded already
		}
		m.Status, m.Updated, m.Error = payouts.MessageDelivered, s.now(), ""
		if !report.Delivered {
			m.Status, m.Error = payouts.MessageFailed, report.Reason
		}
		if err := q.UpdateOutboundMessage(ctx, m); err != nil {
			return err
		}
		return s.linkDelivery(ctx, q, m)
	})
}

// UserMessages lists the messages sent to a user, newest first, at most limit (1 to 100): the
// dashboard's payee page. Their content is not shown.
func (s *Service) UserMessages(ctx context.Context, appID, userID string, limit int) ([]payouts.Message, error) {
	if _, err := s.getUser(ctx, s.store, appID, userID); err != nil {
		return nil, err
	}
	if limit < 1 || limit > 100 {
		limit = 100
	}
	recs, err := s.store.ListOutboundMessages(ctx, appID, userID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]payouts.Message, len(recs))
	for i, m := range recs {
		out[i] = payouts.Message{ID: MessageKey(m.ID), Created: payouts.NewTime(m.Created), Updated: payouts.NewTime(m.Updated),
			Channel: m.Channel, To: m.To, Purpose: m.Purpose, PayoutLinkID: m.PayoutLinkID, Status: m.Status,
			Attempts: m.Attempts, Error: m.Error}
	}
	return out, nil
}

// ResendPayoutLink sends an open sms or email payout link to its payee again: a new message, and
// a link whose delivery failed pending again.
func (s *Service) ResendPayoutLink(ctx context.Context, appID, id string) (*payouts.PayoutLink, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout link")
	}
	err := s.inTx(ctx, func(q *Tx) error {
		l, err := openLink(ctx, q, appID, id, "is not sent again")
		if err != nil {
			return err
		}
		if err := sentByUs(l); err != nil {
			return err
		}
		if l.Status == payouts.LinkDeliveryFailed {
			l.Status, l.Updated = payouts.LinkDeliveryPending, s.now()
			if err := q.UpdatePayoutLink(ctx, l, payouts.LinkDeliveryFailed); err != nil {
				return err
			}
			q.linkUpdated(l, payouts.LinkDeliveryFailed)
		}
		return s.queueLinkMessage(ctx, q, l)
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, id)
}

// sentByUs refuses a link the service does not send: one delivered as a bare link, by the app.
func sentByUs(l *PayoutLinkRecord) error {
	if l.Delivery.Method != payouts.DeliverySMS && l.Delivery.Method != payouts.DeliveryEmail {
		return payouts.Errorf(payouts.EInvalidTransaction, "This payout link is delivered by the app itself, not by email or sms.")
	}
	return nil
}

// CorrectPayoutLinkContact gives an open sms or email link whose message has not reached its
// payee (delivery_pending or delivery_failed) the payee req names, and sends it there: the
// messages still queued for the old contact are dropped, and the link is delivery_pending
// again. It changes who can claim the money, so it is refused once the link reached anyone or a
// payee verified on its flow (which binds the flow to them, see VerifyPayee), and for a link
// issued to a user, whose own phone proves the claim. The amount, the reservation and the
// idempotency key stay as they are.
func (s *Service) CorrectPayoutLinkContact(ctx context.Context, appID, id string, req payouts.CorrectPayoutLinkContactRequest) (*payouts.PayoutLink, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout link")
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	err := s.inTx(ctx, func(q *Tx) error {
		l, err := openLink(ctx, q, appID, id, "its payee cannot be corrected")
		if err != nil {
			return err
		}
		if err := sentByUs(l); err != nil {
			return err
		}
		if l.UserID != nil {
			return payouts.Errorf(payouts.EInvalidTransaction, "This payout link was issued to a user, who claims it with their own phone: correct the user's contact, or cancel the link and issue a new one.")
		}
		if l.Status != payouts.LinkDeliveryFailed && l.Status != payouts.LinkDeliveryPending {
			return payouts.Errorf(payouts.EInvalidTransaction, "This payout link is %s: it reached its payee, so its payee cannot be corrected; cancel it and issue a new one.", l.Status)
		}
		f, err := q.GetFlow(ctx, appID, *l.FlowID)
		if err != nil {
			return err
		}
		if f.UserID != nil {
			return payouts.Errorf(payouts.EInvalidTransaction, "A payee has verified on this payout link's page, which is bound to them now: its payee cannot be corrected; cancel it and issue a new one.")
		}
		from := l.Status
		l.Payee, l.Status, l.Updated = req.Payee.Normalize(), payouts.LinkDeliveryPending, s.now()
		if err := checkDeliveryContact(l); err != nil {
			return err
		}
		if err := q.UpdatePayoutLinkPayee(ctx, l, from); err != nil {
			return err
		}
		if from != l.Status {
			q.linkUpdated(l, from)
		} else {
			q.linkNoted(payouts.EventPayoutLinkUpdated, appID, id)
		}
		if err := q.DropQueuedMessages(ctx, appID, id, "the payout link's payee was corrected before it went out", l.Updated); err != nil {
			return err
		}
		return s.queueLinkMessage(ctx, q, l)
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, id)
}
