package client

import (
	"context"
	"iter"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// CreateUser adds a payee (POST /v2/users). It is not retried: the API has no idempotency key
// for users, and a repeated create would fail as a duplicate email anyway.
func (c *Client) CreateUser(ctx context.Context, req payouts.CreateUserRequest) (*payouts.User, error) {
	return call[payouts.User](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "users"}, body: req})
}

// GetUser returns one user (GET /v2/users/{id}).
func (c *Client) GetUser(ctx context.Context, id string) (*payouts.User, error) {
	return call[payouts.User](ctx, c, get("v2", "users", id))
}

// GetScreening returns the user's sanctions screening against the list loaded last (GET
// /v2/users/{id}/screening, our extension payouts.ExtScreening).
func (c *Client) GetScreening(ctx context.Context, userID string) (*payouts.Screening, error) {
	return call[payouts.Screening](ctx, c, get("v2", "users", userID, "screening"))
}

// ListUsers returns one page of users, newest first (GET /v2/users).
func (c *Client) ListUsers(ctx context.Context, page payouts.Page, filter payouts.UserFilter) (*payouts.List[payouts.User], error) {
	q := pageQuery(page)
	setQuery(q, "status", string(filter.Status))
	setQuery(q, "search", filter.Search)
	return listPage[payouts.User](ctx, c, q, "v2", "users")
}

// AllUsers walks every user matching filter, newest first, fetching pages as the loop needs them.
func (c *Client) AllUsers(ctx context.Context, filter payouts.UserFilter) iter.Seq2[payouts.User, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.User], error) {
		return c.ListUsers(ctx, p, filter)
	}, func(u payouts.User) string { return u.ID })
}

// UpdateUser changes a user's default payout method or metadata (PATCH /v2/users/{id}).
func (c *Client) UpdateUser(ctx context.Context, id string, req payouts.UpdateUserRequest) (*payouts.User, error) {
	return call[payouts.User](ctx, c, request{method: http.MethodPatch, segments: []string{"v2", "users", id}, body: req})
}

// DeleteUser deletes a user and returns it as it was (DELETE /v2/users/{id}). A user with money
// or a payout in flight cannot be deleted (422).
func (c *Client) DeleteUser(ctx context.Context, id string) (*payouts.User, error) {
	return call[payouts.User](ctx, c, request{method: http.MethodDelete, segments: []string{"v2", "users", id}})
}

// SendVerificationToken sends the user a one-time code by SMS, or by voice call
// (POST /v2/users/{id}/send-verification-token).
func (c *Client) SendVerificationToken(ctx context.Context, id string, req payouts.SendVerificationTokenRequest) error {
	return c.do(ctx, request{method: http.MethodPost, segments: []string{"v2", "users", id, "send-verification-token"}, body: req}, nil)
}

// VerifyUser checks the code the user received (POST /v2/users/{id}/verify); a wrong or expired
// token is a 400.
func (c *Client) VerifyUser(ctx context.Context, id string, req payouts.VerifyUserRequest) error {
	return c.do(ctx, request{method: http.MethodPost, segments: []string{"v2", "users", id, "verify"}, body: req}, nil)
}
