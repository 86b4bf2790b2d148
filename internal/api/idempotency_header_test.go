package api_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestIdempotencyKeyHeader: the Idempotency-Key header works as the body's idempotency_key does,
// agrees with a body naming the same key, and is refused with a 400 and no effect when the body
// names another.
func TestIdempotencyKeyHeader(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	creds := env.Credentials()
	deposit(t, env, creds, 1_000_00)
	user := createUser(t, env, creds)
	key := uuid.NewString()
	send := func(t *testing.T, header, bodyKey string) *servicetest.Response {
		t.Helper()
		body := map[string]any{"user_id": user.ID, "amount": -1_00}
		if bodyKey != "" {
			body["idempotency_key"] = bodyKey
		}
		req := env.NewRequest(t, "POST", "/v2/transfers", body)
		if header != "" {
			req.Header.Set("Idempotency-Key", header)
		}
		return env.Send(t, req)
	}
	var first payouts.Transfer
	send(t, key, "").Decode(t, &first)

	tests := []struct {
		name           string
		header, body   string
		status         int
		sameAsFirst    bool
		problemAtField string
	}{
		{name: "header again", header: key, status: http.StatusOK, sameAsFirst: true},
		{name: "body alone with the header's key", body: key, status: http.StatusOK, sameAsFirst: true},
		{name: "header and body agree", header: key, body: key, status: http.StatusOK, sameAsFirst: true},
		{name: "header and body differ", header: key, body: uuid.NewString(), status: http.StatusBadRequest,
			problemAtField: "idempotency_key"},
		{name: "header not a UUID", header: "not-a-uuid", status: http.StatusBadRequest, problemAtField: "idempotency_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := send(t, tt.header, tt.body)
			if resp.Status != tt.status {
				t.Fatalf("status %d %s, want %d", resp.Status, resp.Body, tt.status)
			}
			if tt.problemAtField != "" {
				if e := resp.Error(t); e.Fields[tt.problemAtField] == "" {
					t.Errorf("error %+v names no problem with %s", e, tt.problemAtField)
				}
				return
			}
			var got payouts.Transfer
			resp.Decode(t, &got)
			if tt.sameAsFirst && got.ID != first.ID {
				t.Errorf("answered transfer %s, want the first one %s", got.ID, first.ID)
			}
		})
	}
	if w := getUser(t, env, user.ID).Wallet; w.Amount != 1_00 {
		t.Errorf("user holds %v, want $1.00: one transfer for one key, none for refused requests", w.Amount)
	}
}
