// Package service holds the use cases of the Payout Service: apps, users, payout methods,
// compliance, transfers and the ledger write path, payouts, payout links and flows. It speaks
// the vocabulary of package payouts and declares the Store it needs; transports call it, stores
// implement it.
package service

import (
	"context"
	"crypto/cipher"
	"errors"
	"github.com/disburse/disburse/internal/sanctions"
	"log/slog"
	"time"

	"github.com/disburse/disburse/payouts"
)

// Clock tells the time; tests pass one they control.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// Message is an SMS or email the service sends: verification tokens and payout links
// (message_text.go words them).
type Message struct {
	// Key names the outbox message, the same on every try (MessageKey): an email's Message-ID.
	Key     string
	AppID   string
	AppName string // whose message it is: an email's From name
	ReplyTo string // where replies go, if the app named an address
	Channel string // "sms", "voice" or "email"
	To      string // phone number (+CC NUMBER) or email address
	Country string // the calling code of a phone number To, when queued
	Subject string
	Body    string // plain text, always
	HTML    string // an email's HTML part, if any
	// StatusCallback is where the provider reports the message's delivery, if it can.
	StatusCallback string
}

// Notifier delivers messages. The sandbox notifier keeps them in an inbox a person can read. An
// error wrapping ErrUndeliverable is a refusal for good; any other is tried again later.
type Notifier interface {
	Send(ctx context.Context, m Message) error
}

// Config is what the service needs to know, parsed once by cmd/*.
type Config struct {
	// EncryptionKey seals TINs and account numbers at rest (AES-256-GCM, 32 bytes).
	EncryptionKey []byte
	// Thresholds1099 maps a calendar year to the payments that require a W-9; years after the
	// last entry use the last entry's value.
	Thresholds1099 map[int]payouts.Money
	// IRISTCC is the payer's IRIS Transmitter Control Code, which the IRS gives a filer of
	// information returns; the IRIS file is refused without one.
	IRISTCC string
	// PublicURL is the origin of the hosted pages, used in the link fields of payout links and
	// flows.
	PublicURL string
	// Fees is the fee per payout on each platform; a platform not listed is free.
	Fees map[payouts.Platform]payouts.Money
	// DefaultFeeParty pays the fee when a request names no party.
	DefaultFeeParty payouts.FeeParty
	// RailLease is how long a claimed payout belongs to the worker calling its rail (default one
	// minute): after it a worker that died mid-call is replaced by another.
	RailLease time.Duration
	// WebhookLease is how long a worker holds the webhook deliveries it is sending (default one
	// minute); it gives each batch half of it, so it records before another may take over.
	WebhookLease time.Duration
	// Rails moves payouts out, per platform. Screener holds payouts for review and Identity
	// verifies payees. All three are required; package sandbox provides them without a network.
	Rails    map[payouts.Platform]Rail
	Screener Screener
	Identity IdentityVerifier
	// RailNames names the rail serving each platform, as configured (sandbox, paypal, ...), and
	// RailWebhooks receive the notifications of each provider named there that sends them.
	RailNames    map[payouts.Platform]string
	RailWebhooks map[string]RailWebhook
	// Sandbox is sandbox mode: the app's staff may read the messages the sandbox notifier kept,
	// and a flow may redirect to http://localhost.
	Sandbox bool
	// Limits bound what people who have not proven who they are can make the service do; zero
	// values take DefaultLimits.
	Limits Limits
	// Webhooks posts events to the apps' endpoints; nil leaves deliveries queued.
	Webhooks WebhookSender
	// SanctionsThreshold is the score (0 to 1) at or over which a payee matching the loaded
	// sanctions list is held; zero is sanctions.DefaultThreshold.
	SanctionsThreshold float64
	// Routes name the provider of each channel's messages (message.go), and MessageStatus
	// verifies the delivery reports of each provider named there that sends them.
	Routes        Routes
	MessageStatus map[string]MessageStatusHook
	// SMSCountries are the calling codes ("1", "44") of the phone numbers the service texts or
	// calls; empty texts every country (the sandbox inbox).
	SMSCountries []string
}

// DefaultThresholds1099 is the IRS reporting threshold: $600 through 2025, $2,000 from 2026.
func DefaultThresholds1099() map[int]payouts.Money {
	return map[int]payouts.Money{2025: 600_00, 2026: 2_000_00}
}

// Service is the Payout Service's use cases.
type Service struct {
	store    Store
	clock    Clock
	notifier Notifier
	log      *slog.Logger
	aead     cipher.AEAD
	cfg      Config
	limits   limiters
	// credentials are the app credentials that authenticated lately (credentials.go).
	credentials *credentials
	// transferIDs makes the ids of new transfers (id.go).
	transferIDs TransferIDs
	// sanctions is the index of the sanctions list loaded last (sanctions.go).
	sanctions sanctionsIndex
}

// New returns a Service on store. clock may be nil for the system clock; the notifier and the
// providers of cfg are required.
func New(store Store, cfg Config, clock Clock, notifier Notifier, log *slog.Logger) (*Service, error) {
	aead, err := newAEAD(cfg.EncryptionKey)
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Fees == nil {
		cfg.Fees = DefaultFees()
	}
	if cfg.RailLease <= 0 {
		cfg.RailLease = time.Minute
	}
	if cfg.WebhookLease <= 0 {
		cfg.WebhookLease = time.Minute
	}
	if cfg.SanctionsThreshold <= 0 {
		cfg.SanctionsThreshold = sanctions.DefaultThreshold
	}
	if cfg.DefaultFeeParty == "" {
		cfg.DefaultFeeParty = payouts.FeePartyPlatform
	}
	if cfg.Rails == nil || cfg.Screener == nil || cfg.Identity == nil || notifier == nil {
		return nil, errors.New("service: rails, screener, identity verifier and notifier are required")
	}
	if len(cfg.Thresholds1099) == 0 {
		cfg.Thresholds1099 = DefaultThresholds1099()
	}
	cfg.Limits = cfg.Limits.withDefaults()
	s := &Service{clock: clock, notifier: notifier, log: log, aead: aead, cfg: cfg, credentials: newCredentials()}
	s.store = store
	s.limits = s.newLimiters(cfg.Limits)
	return s, nil
}

// now is the clock's time at the microsecond precision both stores keep, so an object reads the
// same whether it was just made or read back.
func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }
