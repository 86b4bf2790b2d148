package service

import (
	"context"
	"errors"
	"time"

	"github.com/disburse/disburse/payouts"
)

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
		err := s.inTx(ctx, func(q *Tx) error {
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
			return q.UpdatePayoutLink(ctx, l, payouts.LinkDeliveryPending) // a lease: no event
		})
		if err != nil || l == nil {
			return n, err
		}
		status := payouts.LinkDelivered
		if err := s.notifier.Send(ctx, linkMessage(l, appName, s.PayoutLinkURL(&l.PayoutLink))); err != nil {
			s.log.Warn("payout link delivery failed", "link", l.ID, "err", err)
			status = payouts.LinkDeliveryFailed
		}
		err = s.inTx(ctx, func(q *Tx) error {
			l.Status, l.Updated = status, s.now()
			err := q.UpdatePayoutLink(ctx, l, payouts.LinkDeliveryPending)
			if errors.Is(err, ErrNoRecord) {
				return nil // cancelled or claimed while it was being sent
			}
			if err != nil {
				return err
			}
			q.linkUpdated(l, payouts.LinkDeliveryPending)
			return nil
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
