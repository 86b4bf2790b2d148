package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// CreateApp makes an app with fresh API credentials. The key is returned once and stored hashed.
func (s *Service) CreateApp(ctx context.Context, name string) (payouts.Credentials, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return payouts.Credentials{}, payouts.FieldError("name", "must be 1 to 100 characters")
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	key := "sk_" + base64.RawURLEncoding.EncodeToString(secret)
	rec := AppRecord{
		ID:       uuid.NewString(),
		Name:     name,
		ClientID: "ck_" + strings.ReplaceAll(uuid.NewString(), "-", ""),
		KeyHash:  hashKey(key),
		Created:  s.now(),
	}
	err := s.store.InTx(ctx, func(q Queries) error {
		if err := q.CreateApp(ctx, &rec); err != nil {
			return err
		}
		_, err := q.EnsureAccount(ctx, rec.ID, ledger.AppWallet, "")
		return err
	})
	if err != nil {
		return payouts.Credentials{}, err
	}
	return payouts.Credentials{AppID: rec.ID, Name: rec.Name, ClientID: rec.ClientID, APIKey: key}, nil
}

func hashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Authenticate returns the app whose credentials these are.
func (s *Service) Authenticate(ctx context.Context, clientID, apiKey string) (*payouts.App, error) {
	unauthorized := payouts.Errorf(payouts.EUnauthorized, "Invalid API credentials.")
	if clientID == "" || apiKey == "" || len(clientID) > 200 || len(apiKey) > 200 {
		return nil, unauthorized
	}
	rec, err := s.store.AppByClientID(ctx, clientID)
	if errors.Is(err, ErrNoRecord) {
		// Compare anyway, so an unknown client id costs what a wrong key costs.
		subtle.ConstantTimeCompare(hashKey(apiKey), make([]byte, sha256.Size))
		return nil, unauthorized
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(hashKey(apiKey), rec.KeyHash) != 1 {
		return nil, unauthorized
	}
	return &payouts.App{ID: rec.ID, Name: rec.Name, Created: payouts.NewTime(rec.Created)}, nil
}

// GetApp returns the app with its wallet. An app can read only itself.
func (s *Service) GetApp(ctx context.Context, appID, id string) (*payouts.App, error) {
	if id != appID {
		return nil, notFound("app")
	}
	rec, err := s.store.GetApp(ctx, appID)
	if err != nil {
		return nil, orNotFound(err, "app")
	}
	w, err := s.wallet(ctx, s.store, appID, ledger.AppWallet, "")
	if err != nil {
		return nil, err
	}
	return &payouts.App{ID: rec.ID, Name: rec.Name, Wallet: w, Created: payouts.NewTime(rec.Created)}, nil
}

// Apps lists every app, for operators' tools and the settlement worker.
func (s *Service) Apps(ctx context.Context) ([]payouts.App, error) {
	recs, err := s.store.ListApps(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]payouts.App, len(recs))
	for i, r := range recs {
		out[i] = payouts.App{ID: r.ID, Name: r.Name, Created: payouts.NewTime(r.Created)}
	}
	return out, nil
}

// wallet reads an account's balance as a Wallet; an account not made yet is empty.
func (s *Service) wallet(ctx context.Context, q Queries, appID string, kind ledger.Kind, ref string) (payouts.Wallet, error) {
	a, err := q.FindAccount(ctx, appID, kind, ref)
	if errors.Is(err, ErrNoRecord) {
		return payouts.Wallet{}, nil
	}
	if err != nil {
		return payouts.Wallet{}, err
	}
	return walletOf(a), nil
}

func walletOf(a *ledger.Account) payouts.Wallet {
	return payouts.Wallet{Amount: payouts.Money(a.Balance()), WithdrawableAmount: payouts.Money(a.Available())}
}

func notFound(noun string) *payouts.Error {
	return payouts.Errorf(payouts.ENotFound, "No such %s.", noun)
}

// orNotFound turns a store's ErrNotFound into the API's not-found error for noun.
func orNotFound(err error, noun string) error {
	if errors.Is(err, ErrNoRecord) {
		return notFound(noun)
	}
	return err
}

// MaxStatsDays bounds the window of AppStats.
const MaxStatsDays = 366

// AppStats sums an app's activity for an operator's overview: the wallet, transfers needing
// attention, and daily volumes of the last days (today included).
func (s *Service) AppStats(ctx context.Context, appID, id string, days int) (*payouts.AppStats, error) {
	if days == 0 {
		days = 30
	}
	if days < 1 || days > MaxStatsDays {
		return nil, payouts.FieldError("days", "must be between 1 and 366")
	}
	app, err := s.GetApp(ctx, appID, id)
	if err != nil {
		return nil, err
	}
	today := s.now().Truncate(24 * time.Hour)
	since := today.AddDate(0, 0, -(days - 1))
	volumes, err := s.store.DailyVolumes(ctx, appID, since)
	if err != nil {
		return nil, err
	}
	out := &payouts.AppStats{Wallet: app.Wallet}
	for d := since; !d.After(today); d = d.AddDate(0, 0, 1) {
		date := d.Format("2006-01-02")
		v := volumes[date]
		v.Date = date
		out.Days = append(out.Days, v)
	}
	out.Today = out.Days[len(out.Days)-1]
	payout := func(st payouts.TransferStatus) payouts.TransferFilter {
		return payouts.TransferFilter{Status: st, Type: payouts.TransferPayout}
	}
	counts := []struct {
		n     *int
		f     payouts.TransferFilter
		since time.Time
	}{{&out.Flagged, payout(payouts.TransferFlagged), time.Time{}}, {&out.Failed, payout(payouts.TransferFailed), since},
		{&out.Pending, payout(payouts.TransferPending), time.Time{}}}
	for _, c := range counts {
		if *c.n, err = s.store.CountTransfers(ctx, appID, c.f, c.since); err != nil {
			return nil, err
		}
	}
	return out, nil
}
