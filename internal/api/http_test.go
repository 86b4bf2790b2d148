package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestFiberErrors checks that the errors Fiber raises itself come out in the API's error body.
func TestFiberErrors(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	runCalls(t, env, []call{
		{name: "no such endpoint", method: "GET", path: "/v2/nope", status: 404, code: payouts.ENotFound},
		{name: "no such endpoint outside v2", method: "GET", path: "/v1/users", status: 404, code: payouts.ENotFound},
		{name: "method not allowed", method: "PUT", path: "/v2/users", body: `{}`, status: 405, code: payouts.EInvalidInput},
		{name: "method not allowed on an object", method: "POST", path: "/v2/transfers/" + unknownID, body: `{}`, status: 405, code: payouts.EInvalidInput},
		{name: "headers over the limit", method: "GET", path: "/v2/users",
			header: map[string]string{"X-Padding": strings.Repeat("p", 20<<10)}, status: 431, code: payouts.ETooLarge},
	})
}

// TestBodyTooLarge sends 2 MiB to every route that takes a body: each answers 413 with the
// API's error body, and nothing is created.
func TestBodyTooLarge(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	big := `{"metadata": "` + strings.Repeat("m", 2<<20) + `"}`
	for _, r := range apiRoutes(t, w) {
		if r.method == "GET" || r.method == "DELETE" {
			continue
		}
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			call{method: r.method, path: r.path, body: big, status: http.StatusRequestEntityTooLarge, code: payouts.ETooLarge}.do(t, w.env)
		})
	}
	var users payouts.List[payouts.User]
	w.env.Do(t, "GET", "/v2/users", nil).Decode(t, &users)
	if len(users.Data) != 1 {
		t.Errorf("%d users after refused requests, want 1", len(users.Data))
	}
}

func TestBodyLimitIsConfigurable(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.BodyLimit = 4 << 20 }))
	body := userBody()
	body["first_name"] = strings.Repeat("a", 2<<20)
	// Read whole, then refused by the service for what it says.
	call{method: "POST", path: "/v2/users", body: body, status: 400, code: payouts.EInvalidInput, field: "first_name"}.do(t, env)

	small := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.BodyLimit = 1 << 10 }))
	body = userBody()
	body["metadata"] = strings.Repeat("m", 2<<10)
	call{method: "POST", path: "/v2/users", body: body, status: 413, code: payouts.ETooLarge}.do(t, small)
}

func TestContentType(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	runCalls(t, env, []call{
		{name: "application/json", method: "POST", path: "/v2/users", body: userBody(), status: 201},
		{name: "with a charset", method: "POST", path: "/v2/users", body: userBody(),
			header: map[string]string{"Content-Type": "application/json; charset=utf-8"}, status: 201},
		{name: "missing is tolerated", method: "POST", path: "/v2/users", body: userBody(),
			header: map[string]string{"Content-Type": ""}, status: 201},
		{name: "a +json type", method: "POST", path: "/v2/users", body: userBody(),
			header: map[string]string{"Content-Type": "application/vnd.api+json"}, status: 201},
		{name: "text/plain", method: "POST", path: "/v2/users", body: userBody(),
			header: map[string]string{"Content-Type": "text/plain"}, status: 400, code: payouts.EInvalidInput},
		{name: "unparseable", method: "POST", path: "/v2/users", body: userBody(),
			header: map[string]string{"Content-Type": "application/json; charset"}, status: 400, code: payouts.EInvalidInput},
	})
	t.Run("answers are JSON", func(t *testing.T) {
		resp := env.Do(t, "GET", "/v2/users", nil)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q", ct)
		}
	})
}

// TestJSONEdgeCases feeds the decoder what clients get wrong in practice.
func TestJSONEdgeCases(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	user := createUser(t, env, env.Credentials())
	deposit(t, env, env.Credentials(), 10_00)
	transferBody := func(rest string) string { return `{"user_id": "` + user.ID + `", ` + rest + `}` }
	runCalls(t, env, []call{
		{name: "duplicate key: the last wins", method: "POST", path: "/v2/transfers", body: transferBody(`"amount": 7, "amount": -1`), status: 200},
		{name: "keys in another case", method: "POST", path: "/v2/transfers", body: `{"USER_ID": "` + user.ID + `", "Amount": -1}`, status: 200},
		{name: "null amount is a missing amount", method: "POST", path: "/v2/transfers", body: transferBody(`"amount": null`), status: 400, code: payouts.EInvalidInput, field: "amount"},
		{name: "negative zero", method: "POST", path: "/v2/transfers", body: transferBody(`"amount": -0`), status: 400, code: payouts.EInvalidInput, field: "amount"},
		{name: "leading zero", method: "POST", path: "/v2/transfers", body: transferBody(`"amount": 01`), status: 400, code: payouts.EInvalidInput},
		{name: "NaN", method: "POST", path: "/v2/transfers", body: transferBody(`"amount": NaN`), status: 400, code: payouts.EInvalidInput},
		{name: "unterminated string", method: "POST", path: "/v2/transfers", body: `{"user_id": "abc`, status: 400, code: payouts.EInvalidInput},
		{name: "invalid UTF-8 in a name", method: "POST", path: "/v2/users", body: bytes.Replace(mustJSON(t, userBody()), []byte("Ada"), []byte("A\xffa"), 1), status: 201},
		{name: "deep nesting in metadata", method: "POST", path: "/v2/transfers",
			body: transferBody(`"amount": -1, "metadata": {"a": ` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`), status: 200},
		{name: "nesting beyond the decoder's limit", method: "POST", path: "/v2/transfers",
			body: transferBody(`"amount": -1, "metadata": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000)), status: 400, code: payouts.EInvalidInput},
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
