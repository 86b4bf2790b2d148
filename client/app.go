package client

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// GetApp returns an app with its wallet (GET /v2/apps/{id}).
func (c *Client) GetApp(ctx context.Context, appID string) (*payouts.App, error) {
	return call[payouts.App](ctx, c, get("v2", "apps", appID))
}

// GetAppStats returns an operator's overview of an app: its wallet, the payouts flagged, failed
// and pending, and the daily volumes of the last days days, oldest first, each a day of zone (an
// IANA name, "" for UTC) (GET /v2/apps/{id}/stats, our extension: the public service has no such
// endpoint). days 0 leaves the window to the service (30 days).
func (c *Client) GetAppStats(ctx context.Context, appID string, days int, zone string) (*payouts.AppStats, error) {
	r := get("v2", "apps", appID, "stats")
	r.query = url.Values{}
	if days != 0 {
		r.query.Set("days", strconv.Itoa(days))
	}
	if zone != "" {
		r.query.Set("zone", zone)
	}
	return call[payouts.AppStats](ctx, c, r)
}

// Deposit funds the app's wallet from its bank and returns the refill transfer
// (POST /v2/apps/{id}/deposit). Without an idempotency key the client makes one, so the call is
// retried safely.
func (c *Client) Deposit(ctx context.Context, appID string, req payouts.DepositRequest) (*payouts.Transfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "apps", appID, "deposit"}, body: req, retry: true})
}

// CreateApp makes an app of the organization whose credentials the client carries and returns it
// with the app's own credentials, shown only now (POST /v2/apps).
func (c *Client) CreateApp(ctx context.Context, req payouts.CreateAppRequest) (*payouts.App, error) {
	return call[payouts.App](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "apps"}, body: req})
}

// ListApps returns one page of the organization's apps, newest first (GET /v2/apps). It asks
// for our paged answer (envelope=true); the public service ignores the parameter and answers the
// bare array its model declares, and then has_more is a guess: true when the page is full.
func (c *Client) ListApps(ctx context.Context, page payouts.Page) (*payouts.List[payouts.App], error) {
	q := pageQuery(page)
	q.Set("envelope", "true")
	r := get("v2", "apps")
	r.query = q
	apps, err := call[appPage](ctx, c, r)
	if err != nil {
		return nil, err
	}
	if apps.bare {
		limit := page.Limit
		if limit == 0 {
			limit = payouts.DefaultLimit
		}
		apps.HasMore = len(apps.Data) >= limit
	}
	return &apps.List, nil
}

// appPage is a page of apps as either answer of GET /v2/apps writes it: our {has_more, data},
// or the public model's bare array (bare).
type appPage struct {
	payouts.List[payouts.App]
	bare bool
}

func (p *appPage) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		p.bare = true
		return json.Unmarshal(t, &p.Data)
	}
	return json.Unmarshal(b, &p.List)
}

// AllApps walks every app of the organization, newest first.
func (c *Client) AllApps(ctx context.Context) iter.Seq2[payouts.App, error] {
	return all(ctx, c.ListApps, func(a payouts.App) string { return a.ID })
}

// SetACHAccount saves the bank account the app withdraws to (PUT /v2/apps/{id}/ach-account).
func (c *Client) SetACHAccount(ctx context.Context, appID string, req payouts.ACHAccountRequest) (*payouts.ACHAccount, error) {
	return call[payouts.ACHAccount](ctx, c, request{method: http.MethodPut, segments: []string{"v2", "apps", appID, "ach-account"}, body: req, retry: true})
}

// GetACHAccount returns the app's bank account, its number by the last four digits
// (GET /v2/apps/{id}/ach-account).
func (c *Client) GetACHAccount(ctx context.Context, appID string) (*payouts.ACHAccount, error) {
	return call[payouts.ACHAccount](ctx, c, get("v2", "apps", appID, "ach-account"))
}

// SetAppCompliance saves the business behind the app (PUT /v2/apps/{id}/compliance).
func (c *Client) SetAppCompliance(ctx context.Context, appID string, req payouts.BusinessCompliance) (*payouts.BusinessCompliance, error) {
	return call[payouts.BusinessCompliance](ctx, c, request{method: http.MethodPut, segments: []string{"v2", "apps", appID, "compliance"}, body: req, retry: true})
}

// GetAppCompliance returns the business behind the app, the EIN by its last four digits
// (GET /v2/apps/{id}/compliance).
func (c *Client) GetAppCompliance(ctx context.Context, appID string) (*payouts.BusinessCompliance, error) {
	return call[payouts.BusinessCompliance](ctx, c, get("v2", "apps", appID, "compliance"))
}

// Withdraw pays money out of the app's wallet to its ACH account and returns the payout transfer,
// pending until the rail settles it (POST /v2/apps/{id}/withdraw). Without an idempotency key
// the client makes one, so the call is retried safely.
func (c *Client) Withdraw(ctx context.Context, appID string, req payouts.WithdrawRequest) (*payouts.Transfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "apps", appID, "withdraw"}, body: req, retry: true})
}
