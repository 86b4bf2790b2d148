package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// CreateApp makes an app with fresh API credentials in the first organization (none when there
// is no organization yet). The key is returned once and stored hashed.
func (s *Service) CreateApp(ctx context.Context, name string) (payouts.Credentials, error) {
	return s.CreateAppKeyed(ctx, name, FirstKeyName)
}

// FirstKeyName names the key an app or an organization is made with, unless told otherwise.
const FirstKeyName = "first key"

// CreateAppKeyed is CreateApp with the name of the app's first key: the embedded dashboard
// names its own.
func (s *Service) CreateAppKeyed(ctx context.Context, name, keyName string) (payouts.Credentials, error) {
	orgs, err := s.store.ListOrganizations(ctx)
	if err != nil {
		return payouts.Credentials{}, err
	}
	rec := &AppRecord{Kind: KindApp, Name: name, Status: payouts.AppApproved}
	if len(orgs) > 0 {
		rec.OrganizationID = orgs[0].ID
	}
	return s.createTenant(ctx, rec, keyName)
}

// createTenant stores an app or an organization with fresh credentials and opens its wallet.
func (s *Service) createTenant(ctx context.Context, rec *AppRecord, keyName string) (payouts.Credentials, error) {
	rec.Name = strings.TrimSpace(rec.Name)
	if err := (payouts.CreateAppRequest{Name: rec.Name, Metadata: rec.Metadata}).Validate(); err != nil {
		return payouts.Credentials{}, err
	}
	rec.ID = newID()
	rec.ClientID = "ck_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	rec.Metadata = payouts.NormalizeMetadata(rec.Metadata)
	rec.Created = s.now()
	key, keyRec := newAPIKey(rec.ID, keyName, "", rec.Created)
	err := s.inTx(ctx, func(q *Tx) error {
		if err := q.CreateApp(ctx, rec); err != nil {
			return err
		}
		if err := q.CreateAPIKey(ctx, keyRec); err != nil {
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

// newAPIKey makes a key for the app: the secret, shown once, and its record, which keeps it
// hashed.
func newAPIKey(appID, name, createdBy string, now time.Time) (string, *APIKeyRecord) {
	secret := make([]byte, 32)
	rand.Read(secret)
	key := "sk_" + base64.RawURLEncoding.EncodeToString(secret)
	return key, &APIKeyRecord{ID: newID(), AppID: appID, Name: strings.TrimSpace(name), Last4: key[len(key)-4:],
		KeyHash: hashKey(key), CreatedBy: createdBy, Created: now}
}

func hashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Principal is who a request authenticated as: an app (AppID), or an organization
// (Organization true), which acts as one of its apps when it names one.
type Principal struct {
	AppID          string
	OrganizationID string
	Organization   bool
	// KeyID is the API key the request authenticated with.
	KeyID string
}

// Authenticate returns the principal whose credentials these are. actAs, when not empty, names
// the app an organization acts as (the Api-App-Id header); an app may name only itself.
func (s *Service) Authenticate(ctx context.Context, clientID, apiKey, actAs string) (*Principal, error) {
	unauthorized := payouts.Errorf(payouts.EUnauthorized, "Invalid API credentials.")
	if clientID == "" || apiKey == "" || len(clientID) > 200 || len(apiKey) > 200 {
		return nil, unauthorized
	}
	now := s.now()
	hash := hashKey(apiKey)
	rec, keyID, remembered := s.credentials.get(clientID, hash, now)
	if !remembered {
		var key *APIKeyRecord
		var err error
		if rec, key, err = s.appKey(ctx, clientID, hash, now); err != nil {
			if errors.Is(err, ErrNoRecord) {
				return nil, unauthorized
			}
			return nil, err
		}
		keyID = key.ID
		s.credentials.remember(rec, key, now)
	}
	if rec.Kind == KindApp {
		if actAs != "" && actAs != rec.ID {
			return nil, payouts.Errorf(payouts.EForbidden, "App credentials act only as their own app.")
		}
		return &Principal{AppID: rec.ID, OrganizationID: rec.OrganizationID, KeyID: keyID}, nil
	}
	p := &Principal{OrganizationID: rec.ID, Organization: true, KeyID: keyID}
	if actAs == "" {
		return p, nil
	}
	return s.ActAs(ctx, *p, actAs)
}

// GetApp returns the app with its wallet and metrics. An app can read only itself.
func (s *Service) GetApp(ctx context.Context, appID, id string) (*payouts.App, error) {
	if id != appID {
		return nil, notFound("app")
	}
	rec, err := s.store.GetApp(ctx, appID)
	if err != nil {
		return nil, orNotFound(err, "app")
	}
	return s.appOf(ctx, s.store, rec)
}

// appOf reads an app's wallet and metrics through q.
func (s *Service) appOf(ctx context.Context, q Reads, rec *AppRecord) (*payouts.App, error) {
	w, err := s.wallet(ctx, q, rec.ID, ledger.AppWallet, "")
	if err != nil {
		return nil, err
	}
	users, out, err := q.AppMetrics(ctx, rec.ID)
	if err != nil {
		return nil, err
	}
	return &payouts.App{ID: rec.ID, Name: rec.Name, Status: rec.Status, Metadata: rec.Metadata, Wallet: w,
		Created: payouts.NewTime(rec.Created), OrganizationID: rec.OrganizationID,
		Metrics: payouts.AppMetrics{WalletBalance: w.Amount.Decimal(), MoneyOut: out.Decimal(), ConnectedUsers: users}}, nil
}

// Apps lists every app, for operators' tools and the settlement worker.
func (s *Service) Apps(ctx context.Context) ([]payouts.App, error) {
	return s.tenants(ctx, s.store.ListApps)
}

// Organizations lists every organization, for operators' tools and the ledger checks.
func (s *Service) Organizations(ctx context.Context) ([]payouts.App, error) {
	return s.tenants(ctx, s.store.ListOrganizations)
}

func (s *Service) tenants(ctx context.Context, list func(context.Context) ([]AppRecord, error)) ([]payouts.App, error) {
	recs, err := list(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]payouts.App, len(recs))
	for i, r := range recs {
		out[i] = payouts.App{ID: r.ID, Name: r.Name, Status: r.Status, Metadata: r.Metadata,
			Created: payouts.NewTime(r.Created), OrganizationID: r.OrganizationID}
	}
	return out, nil
}

// wallet reads an account's balance as a Wallet; an account not made yet is empty.
func (s *Service) wallet(ctx context.Context, q Reads, appID string, kind ledger.Kind, ref string) (payouts.Wallet, error) {
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

// LoadZone is the time zone of an IANA name, "" being UTC: a name this machine does not know, or
// "Local" (the server's own zone, which callers cannot know), is a field error naming it.
func LoadZone(name string) (*time.Location, error) {
	loc, ok := payouts.LoadZone(name)
	if !ok {
		return nil, payouts.FieldError("zone", fmt.Sprintf("unknown time zone %q: use an IANA name such as America/New_York", name))
	}
	return loc, nil
}

// MaxStatsDays bounds the window of AppStats.
const MaxStatsDays = 366

// AppStats sums an app's activity for an operator's overview: the wallet, transfers needing
// attention, and daily volumes of the last days (today included), days of zone, an IANA name
// ("" is UTC).
func (s *Service) AppStats(ctx context.Context, appID, id string, days int, zone string) (*payouts.AppStats, error) {
	if days == 0 {
		days = 30
	}
	if days < 1 || days > MaxStatsDays {
		return nil, payouts.FieldError("days", "must be between 1 and 366")
	}
	loc, err := LoadZone(zone)
	if err != nil {
		return nil, err
	}
	app, err := s.GetApp(ctx, appID, id)
	if err != nil {
		return nil, err
	}
	now := s.now().In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	// Each day starts at its own midnight: AddDate keeps the wall clock across a change of offset.
	bounds := make([]time.Time, days+1)
	for i := range bounds {
		bounds[i] = today.AddDate(0, 0, i-(days-1))
	}
	since := bounds[0]
	out := &payouts.AppStats{Wallet: app.Wallet}
	if out.Days, err = s.store.DailyVolumes(ctx, appID, bounds); err != nil {
		return nil, err
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
	if err := s.attention(ctx, appID, out, now.Year()); err != nil {
		return nil, err
	}
	return out, nil
}

// attention sets what someone has to fix on stats: the payees owing a W-9 for year, and the
// endpoints whose every recent delivery failed, so that a dashboard's overview asks once.
func (s *Service) attention(ctx context.Context, appID string, stats *payouts.AppStats, year int) error {
	y, err := s.readTaxYear(ctx, appID, year)
	if err != nil {
		return err
	}
	stats.TaxYear = year
	for _, t := range y.totals {
		if t.MissingTIN {
			stats.OweW9++
		}
	}
	endpoints, err := s.store.ListWebhookEndpoints(ctx, appID)
	if err != nil {
		return err
	}
	stats.FailingWebhookEndpoints = []payouts.WebhookEndpoint{}
	for _, e := range endpoints {
		attempts, _, err := s.store.ListWebhookAttempts(ctx, appID, e.ID, "", payouts.Page{Limit: payouts.HealthWindow})
		if err != nil {
			return err
		}
		newest := make([]payouts.WebhookAttempt, len(attempts))
		for i := range attempts {
			newest[i] = attempts[i].WebhookAttempt
		}
		if payouts.EveryDeliveryFailed(newest) {
			stats.FailingWebhookEndpoints = append(stats.FailingWebhookEndpoints, e.WebhookEndpoint)
		}
	}
	return nil
}
