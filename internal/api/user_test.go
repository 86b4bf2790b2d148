package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

func TestCreateUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env

	t.Run("success", func(t *testing.T) {
		body := userBody()
		body["username"] = "ada-l"
		body["metadata"] = map[string]any{"employee": 42}
		body["unknown_field"] = "ignored"
		resp := call{method: "POST", path: "/v2/users", body: body, status: http.StatusCreated}.do(t, env)
		var u payouts.User
		resp.Decode(t, &u)
		if !payouts.ValidID(u.ID) || u.Status != payouts.UserUnverified || u.Verified {
			t.Errorf("new user %+v: want a valid id, status unverified, not verified", u)
		}
		if u.Email != body["email"] || u.PhoneNumber.CountryCode != "1" || u.Username == nil || *u.Username != "ada-l" {
			t.Errorf("new user %+v does not echo the request", u)
		}
		if string(u.Metadata) != `{"employee":42}` {
			t.Errorf("metadata %s, want it verbatim", u.Metadata)
		}
		if u.Wallet != (payouts.Wallet{}) {
			t.Errorf("new user's wallet %+v, want empty", u.Wallet)
		}
		// The wire format has every documented key, 1099_collected included; a default payout
		// method, which the model does not allow to be null, is left out until there is one.
		var raw map[string]json.RawMessage
		resp.Decode(t, &raw)
		for _, k := range []string{"id", "first_name", "last_name", "email", "phone_number", "username", "status",
			"verified", "wallet", "compliance", "metadata"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("user JSON has no %q: %s", k, resp.Body)
			}
		}
		if _, ok := raw["default_payout_method"]; ok {
			t.Errorf("a new user's default_payout_method is written: %s", resp.Body)
		}
		if !strings.Contains(string(raw["compliance"]), `"1099_collected":false`) {
			t.Errorf("compliance %s has no 1099_collected", raw["compliance"])
		}
	})

	calls := badBodies("POST", "/v2/users", `{"first_name": ["Ada"]}`, "first_name")
	missing := func(field string) map[string]any {
		b := userBody()
		delete(b, field)
		return b
	}
	with := func(field string, v any) map[string]any {
		b := userBody()
		b[field] = v
		return b
	}
	calls = append(calls,
		call{name: "empty object", body: `{}`, status: 400, code: payouts.EInvalidInput, field: "first_name"},
		call{name: "null", body: `null`, status: 400, code: payouts.EInvalidInput, field: "email"},
		call{name: "missing first_name", body: missing("first_name"), status: 400, code: payouts.EInvalidInput, field: "first_name"},
		call{name: "missing last_name", body: missing("last_name"), status: 400, code: payouts.EInvalidInput, field: "last_name"},
		call{name: "missing email", body: missing("email"), status: 400, code: payouts.EInvalidInput, field: "email"},
		call{name: "missing country_code", body: missing("country_code"), status: 400, code: payouts.EInvalidInput, field: "country_code"},
		call{name: "missing phone_number", body: missing("phone_number"), status: 400, code: payouts.EInvalidInput, field: "phone_number"},
		call{name: "invalid email", body: with("email", "ada@"), status: 400, code: payouts.EInvalidEmail, field: "email"},
		call{name: "invalid phone", body: with("phone_number", "12ab"), status: 400, code: payouts.EInvalidPhone, field: "phone_number"},
		call{name: "country code with letters", body: with("country_code", "US"), status: 400, code: payouts.EInvalidPhone, field: "country_code"},
		call{name: "invalid username", body: with("username", "no spaces"), status: 400, code: payouts.EInvalidUsername, field: "username"},
		call{name: "number as email", body: with("email", 12), status: 400, code: payouts.EInvalidInput, field: "email"},
		call{name: "object as phone", body: with("phone_number", map[string]any{"n": 1}), status: 400, code: payouts.EInvalidInput, field: "phone_number"},
		call{name: "metadata a number", body: with("metadata", 5), status: 400, code: payouts.EInvalidInput, field: "metadata"},
		call{name: "metadata over 8 KiB", body: with("metadata", map[string]string{"x": strings.Repeat("a", 9000)}),
			status: 400, code: payouts.EInvalidInput, field: "metadata"},
		call{name: "wrong key", body: userBody(), as: &payouts.Credentials{ClientID: w.app.ClientID, APIKey: "sk_wrong"},
			status: 401, code: payouts.EUnauthorized},
	)
	for i := range calls {
		calls[i].method, calls[i].path = "POST", "/v2/users"
	}
	runCalls(t, env, calls)
}

func TestListUsers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	second := createUser(t, env, w.app)

	t.Run("newest first", func(t *testing.T) {
		var list payouts.List[payouts.User]
		call{method: "GET", path: "/v2/users", status: 200}.do(t, env).Decode(t, &list)
		if len(list.Data) != 2 || list.Data[0].ID != second.ID || list.Data[1].ID != w.user.ID || list.HasMore {
			t.Errorf("list %+v: want the two users of this app, newest first, no more", list)
		}
	})
	t.Run("trailing slash", func(t *testing.T) {
		var list payouts.List[payouts.User]
		call{method: "GET", path: "/v2/users/", status: 200}.do(t, env).Decode(t, &list)
		if len(list.Data) != 2 {
			t.Errorf("GET /v2/users/ listed %d users, want 2", len(list.Data))
		}
	})
	t.Run("limit", func(t *testing.T) {
		var list payouts.List[payouts.User]
		call{method: "GET", path: "/v2/users?limit=1", status: 200}.do(t, env).Decode(t, &list)
		if len(list.Data) != 1 || !list.HasMore {
			t.Errorf("limit=1: %d users, has_more %v; want 1 and true", len(list.Data), list.HasMore)
		}
	})
	t.Run("search", func(t *testing.T) {
		var list payouts.List[payouts.User]
		call{method: "GET", path: "/v2/users?search=" + second.LastName, status: 200}.do(t, env).Decode(t, &list)
		if len(list.Data) != 1 || list.Data[0].ID != second.ID {
			t.Errorf("search %q: %+v, want only that user", second.LastName, list.Data)
		}
	})
	t.Run("status filter", func(t *testing.T) {
		var list payouts.List[payouts.User]
		call{method: "GET", path: "/v2/users?status=verified", status: 200}.do(t, env).Decode(t, &list)
		if len(list.Data) != 0 {
			t.Errorf("status=verified listed %d users, want none", len(list.Data))
		}
	})

	calls := pageCalls("/v2/users")
	calls = append(calls,
		call{name: "unknown status", method: "GET", path: "/v2/users?status=happy", status: 400, code: payouts.EInvalidInput, field: "status"},
		call{name: "another app's cursor", method: "GET", path: "/v2/users?starting_after=" + w.otherUser.ID, status: 400, code: payouts.EInvalidInput},
		call{name: "no credentials", method: "GET", path: "/v2/users", header: map[string]string{"Authorization": ""}, status: 401, code: payouts.EUnauthorized},
	)
	runCalls(t, env, calls)
}

func TestGetUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	t.Run("success", func(t *testing.T) {
		var u payouts.User
		call{method: "GET", path: "/v2/users/" + w.user.ID, status: 200}.do(t, env).Decode(t, &u)
		if u.ID != w.user.ID || u.Wallet.Amount != 50_00 || u.Wallet.WithdrawableAmount != 50_00 {
			t.Errorf("user %+v: want %s with $50.00", u, w.user.ID)
		}
	})
	runCalls(t, env, notFoundCalls("GET", func(id string) string { return "/v2/users/" + id }, nil, w.otherUser.ID))
}

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	path := "/v2/users/" + w.user.ID
	call{method: "PUT", path: path + "/payout-methods", body: map[string]any{"platform": "paypal", "email": "ada@example.com"}, status: 200}.do(t, env)
	call{method: "PUT", path: path + "/payout-methods", body: map[string]any{"platform": "venmo", "handle": "ada-venmo"}, status: 200}.do(t, env)

	t.Run("metadata and default payout method", func(t *testing.T) {
		var u payouts.User
		call{method: "PATCH", path: path, body: map[string]any{"metadata": "vip", "default_payout_method": "venmo"}, status: 200}.do(t, env).Decode(t, &u)
		if string(u.Metadata) != `"vip"` || u.DefaultPayoutMethod == nil || *u.DefaultPayoutMethod != payouts.PlatformVenmo {
			t.Errorf("updated user: metadata %s, default %v", u.Metadata, u.DefaultPayoutMethod)
		}
		if got := getUser(t, env, w.user.ID); string(got.Metadata) != `"vip"` {
			t.Errorf("metadata not kept: %s", got.Metadata)
		}
	})
	t.Run("trailing slash", func(t *testing.T) {
		call{method: "PATCH", path: path + "/", body: map[string]any{"metadata": nil}, status: 200}.do(t, env)
	})

	calls := badBodies("PATCH", path, `{"default_payout_method": 3}`, "default_payout_method")
	calls = append(calls,
		call{name: "unknown platform", method: "PATCH", path: path, body: map[string]any{"default_payout_method": "cheque"}, status: 400, code: payouts.EInvalidInput, field: "default_payout_method"},
		call{name: "platform without a saved method", method: "PATCH", path: path, body: map[string]any{"default_payout_method": "ach"}, status: 400, code: payouts.EInvalidInput, field: "default_payout_method"},
		call{name: "metadata an array", method: "PATCH", path: path, body: `{"metadata": [1]}`, status: 400, code: payouts.EInvalidInput, field: "metadata"},
	)
	calls = append(calls, notFoundCalls("PATCH", func(id string) string { return "/v2/users/" + id }, map[string]any{"metadata": "x"}, w.otherUser.ID)...)
	runCalls(t, env, calls)
}

func TestDeleteUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	empty := createUser(t, env, w.app)

	t.Run("success", func(t *testing.T) {
		var u payouts.User
		call{method: "DELETE", path: "/v2/users/" + empty.ID, status: 200}.do(t, env).Decode(t, &u)
		if u.ID != empty.ID {
			t.Errorf("deleted %s, want %s", u.ID, empty.ID)
		}
		call{method: "GET", path: "/v2/users/" + empty.ID, status: 404, code: payouts.ENotFound}.do(t, env)
	})
	calls := []call{{name: "user with money", method: "DELETE", path: "/v2/users/" + w.user.ID, status: 422, code: payouts.EInvalidTransaction}}
	calls = append(calls, notFoundCalls("DELETE", func(id string) string { return "/v2/users/" + id }, nil, w.otherUser.ID)...)
	runCalls(t, env, calls)
	if u := getUser(t, env, w.user.ID); u.Wallet.Amount != 50_00 {
		t.Errorf("refused delete changed the user: %+v", u.Wallet)
	}
}

func TestVerifyUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	send := "/v2/users/" + w.user.ID + "/send-verification-token"
	verify := "/v2/users/" + w.user.ID + "/verify"
	phone := payouts.Phone{CountryCode: w.user.PhoneNumber.CountryCode, PhoneNumber: w.user.PhoneNumber.PhoneNumber}.String()

	t.Run("send without a body", func(t *testing.T) {
		resp := call{method: "POST", path: send, status: http.StatusAccepted}.do(t, env)
		if len(resp.Body) != 0 {
			t.Errorf("202 with a body: %q", resp.Body)
		}
	})
	t.Run("send again at once", func(t *testing.T) {
		call{method: "POST", path: send, status: http.StatusTooManyRequests, code: payouts.ETooManyRequests}.do(t, env)
	})
	t.Run("send by voice", func(t *testing.T) {
		env.Clock.Advance(30 * time.Second) // the resend gap
		resp := call{method: "POST", path: send, body: map[string]any{"use_voice": true}, status: http.StatusAccepted}.do(t, env)
		if len(resp.Body) != 0 {
			t.Errorf("202 with a body: %q", resp.Body)
		}
	})
	runCalls(t, env, []call{
		{name: "wrong token", method: "POST", path: verify, body: map[string]any{"token": "000000x"}, status: 400, code: payouts.EInvalidInput, field: "token"},
		{name: "short token", method: "POST", path: verify, body: map[string]any{"token": "123"}, status: 400, code: payouts.EInvalidInput, field: "token"},
		{name: "token a number", method: "POST", path: verify, body: `{"token": 123456}`, status: 400, code: payouts.EInvalidInput, field: "token"},
		{name: "use_voice a string", method: "POST", path: send, body: `{"use_voice": "yes"}`, status: 400, code: payouts.EInvalidInput, field: "use_voice"},
	})
	t.Run("right token", func(t *testing.T) {
		resp := call{method: "POST", path: verify, body: map[string]any{"token": env.Inbox.Token(t, phone)}, status: http.StatusOK}.do(t, env)
		if len(resp.Body) != 0 {
			t.Errorf("verify answered a body: %q", resp.Body)
		}
		if u := getUser(t, env, w.user.ID); !u.Verified || u.Status != payouts.UserVerified {
			t.Errorf("after verify: verified %v, status %s", u.Verified, u.Status)
		}
	})
	t.Run("token used twice", func(t *testing.T) {
		call{method: "POST", path: verify, body: map[string]any{"token": env.Inbox.Token(t, phone)}, status: 400, code: payouts.EInvalidInput, field: "token"}.do(t, env)
	})

	calls := badBodies("POST", verify, `{"token": true}`, "token")
	calls = append(calls, notFoundCalls("POST", func(id string) string { return "/v2/users/" + id + "/send-verification-token" }, nil, w.otherUser.ID)...)
	calls = append(calls, notFoundCalls("POST", func(id string) string { return "/v2/users/" + id + "/verify" }, map[string]any{"token": "123456"}, w.otherUser.ID)...)
	runCalls(t, env, calls)
	for _, m := range env.Inbox.Messages() {
		if m.AppID != w.app.AppID {
			t.Errorf("a refused request sent a message: %+v", m)
		}
	}
}
