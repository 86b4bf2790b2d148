package service

import (
	"context"
	"time"

	"github.com/disburse/disburse/payouts"
)

// Rate is at most Max events every Per.
type Rate struct {
	Max int
	Per time.Duration
}

// Limits bound the hosted pages' work for payees who have not proven who they are: how often a
// client address may ask to identify someone, on any flow (IdentifyPerAddress) and on one flow (a
// payout link's, or one the API made: IdentifyPerFlow), how many different phones a flow that
// names nobody takes (PhonesPerFlow), and how many codes go out for one flow to one client
// address (SendsPerFlow) and for one app (SendsPerApp, the API's send-verification-token
// included). The per-flow limits are counted per client address, so that whoever holds a flow's
// URL cannot spend the payee's share.
//
// RailWebhookCallsPerAddress and RailWebhookCalls bound the calls a payout provider makes to
// verify a notification posted to /v2/rail-webhooks/{provider} (PayPal's verify-webhook-signature),
// per client address and per provider: anyone may post there, and each call spends the account's
// standing with the provider.
type Limits struct {
	IdentifyPerFlow    Rate
	IdentifyPerAddress Rate
	PhonesPerFlow      Rate
	SendsPerFlow       Rate
	SendsPerApp        Rate

	RailWebhookCallsPerAddress Rate
	RailWebhookCalls           Rate

	// MessagesPerRecipient, MessagesPerApp and TextsPerCountry bound the messages the service
	// sends (links and codes) to one address, for one app, and the texts to one country's numbers
	// across apps: SMS pumping sends many texts to numbers whose carrier pays the sender.
	MessagesPerRecipient Rate
	MessagesPerApp       Rate
	TextsPerCountry      Rate
}

// DefaultLimits leave a real payee room to mistype and ask again, and a household or office
// behind one address room for a few payees; they stop a script after a handful of tries.
func DefaultLimits() Limits {
	return Limits{
		IdentifyPerFlow:    Rate{Max: 10, Per: time.Hour},
		IdentifyPerAddress: Rate{Max: 30, Per: time.Hour},
		PhonesPerFlow:      Rate{Max: 5, Per: time.Hour},
		SendsPerFlow:       Rate{Max: 10, Per: time.Hour},
		SendsPerApp:        Rate{Max: 1000, Per: time.Hour},
		// A provider notifies once or twice a payout, from a few addresses of its own.
		RailWebhookCallsPerAddress: Rate{Max: 60, Per: time.Minute},
		RailWebhookCalls:           Rate{Max: 600, Per: time.Minute},
		// A payee gets a link and a few codes; an app's payroll day may text thousands.
		MessagesPerRecipient: Rate{Max: 10, Per: time.Hour},
		MessagesPerApp:       Rate{Max: 5000, Per: time.Hour},
		TextsPerCountry:      Rate{Max: 2000, Per: time.Hour},
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, r := range []struct{ got, def *Rate }{
		{&l.IdentifyPerFlow, &d.IdentifyPerFlow}, {&l.IdentifyPerAddress, &d.IdentifyPerAddress},
		{&l.PhonesPerFlow, &d.PhonesPerFlow},
		{&l.SendsPerFlow, &d.SendsPerFlow}, {&l.SendsPerApp, &d.SendsPerApp},
		{&l.RailWebhookCallsPerAddress, &d.RailWebhookCallsPerAddress}, {&l.RailWebhookCalls, &d.RailWebhookCalls},
		{&l.MessagesPerRecipient, &d.MessagesPerRecipient}, {&l.MessagesPerApp, &d.MessagesPerApp},
		{&l.TextsPerCountry, &d.TextsPerCountry},
	} {
		if r.got.Max <= 0 || r.got.Per <= 0 {
			*r.got = *r.def
		}
	}
	return l
}

type limiters struct {
	identifyPerFlow, identifyPerAddress, phonesPerFlow, sendsPerFlow, sendsPerApp *RateLimiter
	// phoneTries counts the tries of each phone on a flow, only to tell a phone's first try in
	// PhonesPerFlow's window: its limit is never asked.
	phoneTries *RateLimiter

	railWebhookCallsPerAddress, railWebhookCalls *RateLimiter
}

func (s *Service) newLimiters(l Limits) limiters {
	return limiters{
		identifyPerFlow:    s.RateLimiter("identify-flow", l.IdentifyPerFlow.Max, l.IdentifyPerFlow.Per),
		identifyPerAddress: s.RateLimiter("identify-address", l.IdentifyPerAddress.Max, l.IdentifyPerAddress.Per),
		phonesPerFlow:      s.RateLimiter("phones-flow", l.PhonesPerFlow.Max, l.PhonesPerFlow.Per),
		sendsPerFlow:       s.RateLimiter("sends-flow", l.SendsPerFlow.Max, l.SendsPerFlow.Per),
		sendsPerApp:        s.RateLimiter("sends-app", l.SendsPerApp.Max, l.SendsPerApp.Per),
		phoneTries:         s.RateLimiter("phone-tries", l.PhonesPerFlow.Max, l.PhonesPerFlow.Per),

		railWebhookCallsPerAddress: s.RateLimiter("rail-webhook-address", l.RailWebhookCallsPerAddress.Max, l.RailWebhookCallsPerAddress.Per),
		railWebhookCalls:           s.RateLimiter("rail-webhook", l.RailWebhookCalls.Max, l.RailWebhookCalls.Per),
	}
}

// allow counts an event of key on limiter and answers too-many-requests past its limit.
func (s *Service) allow(ctx context.Context, l *RateLimiter, key, message string) error {
	ok, err := l.Allow(ctx, key, s.now())
	if err != nil {
		return err
	}
	if !ok {
		return payouts.Errorf(payouts.ETooManyRequests, "%s", message)
	}
	return nil
}
