package api_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// call is a request and the answer it must get. Every test of this package goes through real
// HTTP to a real service; servicetest fails a test whose requests got any 5xx.
type call struct {
	name   string
	method string
	path   string // after the base URL: /v2/...
	body   any    // nil: none; string: sent as is; otherwise JSON
	as     *payouts.Credentials
	header map[string]string // set (or, with "", removed) after the defaults

	status int
	code   string // the error code, for a 4xx
	field  string // a field the error must name
}

// do sends c and checks the answer's status and, for errors, its body.
func (c call) do(t *testing.T, env *servicetest.Env) *servicetest.Response {
	t.Helper()
	req := env.NewRequest(t, c.method, c.path, c.body)
	if c.as != nil {
		req.SetBasicAuth(c.as.ClientID, c.as.APIKey)
	}
	for k, v := range c.header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp := env.Send(t, req)
	if resp.Status != c.status {
		t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, resp.Status, resp.Body, c.status)
	}
	if c.status >= 400 {
		checkError(t, resp, c.code, c.field)
	}
	return resp
}

// checkError checks an error answer: the API's body with the code, a message, the field when
// one is named, and the JSON content type.
func checkError(t *testing.T, resp *servicetest.Response, code, field string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type %q, want application/json", ct)
	}
	e := resp.Error(t)
	if code != "" && e.Code != code {
		t.Errorf("error code %q (%s), want %q", e.Code, resp.Body, code)
	}
	if e.Message == "" {
		t.Errorf("error without a message: %s", resp.Body)
	}
	if field != "" {
		if _, ok := e.Fields[field]; !ok {
			t.Errorf("error %s does not name the field %q", resp.Body, field)
		}
	}
	if resp.Status == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Basic realm="disburse"` {
		t.Errorf("401 with WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
	}
}

// runCalls runs each call as a subtest.
func runCalls(t *testing.T, env *servicetest.Env, calls []call) {
	t.Helper()
	for _, c := range calls {
		name := c.name
		if name == "" {
			name = c.method + " " + c.path
		}
		t.Run(name, func(t *testing.T) { c.do(t, env) })
	}
}

// badBodies are the bodies every endpoint that reads JSON must refuse with 400: empty,
// malformed, not an object, followed by more data, and not declared as JSON. wrongType is a
// body with a field of the wrong JSON type, which the error must name.
func badBodies(method, path, wrongType, field string) []call {
	bad := func(name string, body any, header map[string]string, field string) call {
		return call{name: name, method: method, path: path, body: body, header: header,
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: field}
	}
	return []call{
		bad("empty body", "", nil, ""),
		bad("blank body", " \n ", nil, ""),
		bad("malformed JSON", `{"amount": `, nil, ""),
		bad("not JSON", `amount=5`, nil, ""),
		bad("array", `[{}]`, nil, ""),
		bad("string", `"hello"`, nil, ""),
		bad("trailing garbage", `{} x`, nil, ""),
		bad("two objects", `{} {}`, nil, ""),
		bad("wrong type of "+field, wrongType, nil, field),
		bad("form Content-Type", `{}`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, ""),
	}
}

// amountBodies are bodies whose amount is not a whole number of cents in range: each is a 400
// naming amount. template has one %s where the amount goes.
func amountBodies(method, path, template string) []call {
	var calls []call
	for _, a := range []struct{ name, value string }{
		{"fractional amount", "10.5"},
		{"fractional amount ending in zero", "100.0"},
		{"exponent amount", "1e3"},
		{"string amount", `"100"`},
		{"boolean amount", "true"},
		{"object amount", `{"cents": 5}`},
		{"amount 2^63", "9223372036854775808"},
		{"amount -2^63-1", "-9223372036854775809"},
		{"amount 2^64", "18446744073709551616"},
		{"amount over the maximum", "1000000000001"},
		{"amount -2^63", "-9223372036854775808"},
	} {
		calls = append(calls, call{name: a.name, method: method, path: path, body: fmt.Sprintf(template, a.value),
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "amount"})
	}
	return calls
}

// pageCalls are the bad pages every list endpoint must refuse with 400.
func pageCalls(path string) []call {
	var calls []call
	for _, q := range []struct{ name, query, field string }{
		{"limit 0", "limit=0", "limit"},
		{"limit 101", "limit=101", "limit"},
		{"limit -1", "limit=-1", "limit"},
		{"limit not a number", "limit=ten", "limit"},
		{"limit fractional", "limit=1.5", "limit"},
		{"bogus starting_after", "starting_after=bogus", ""},
		{"unknown starting_after", "starting_after=" + unknownID, ""},
		{"bogus ending_before", "ending_before=%27%3B--", ""},
		{"both cursors", "starting_after=" + unknownID + "&ending_before=" + unknownID, ""},
	} {
		calls = append(calls, call{name: q.name, method: "GET", path: path + "?" + q.query,
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: q.field})
	}
	return calls
}

// unknownID is a well-formed id that names nothing.
const unknownID = "00000000-0000-4000-8000-000000000000"

// notFoundCalls are requests for a path with an id that is malformed, unknown, or another app's:
// each is a 404. pathOf builds the path from an id.
func notFoundCalls(method string, pathOf func(id string) string, body any, otherAppsID string) []call {
	var calls []call
	for _, id := range []struct{ name, id string }{
		{"malformed id", "not-an-id"},
		{"id with SQL", "1'%20OR%20'1'='1"},
		{"unknown id", unknownID},
		{"another app's id", otherAppsID},
	} {
		calls = append(calls, call{name: id.name, method: method, path: pathOf(id.id), body: body,
			status: http.StatusNotFound, code: payouts.ENotFound})
	}
	return calls
}

// seq makes unique emails and phone numbers across a test binary.
var seq atomic.Int64

// userBody is a valid body for POST /v2/users.
func userBody() map[string]any {
	n := seq.Add(1)
	return map[string]any{
		"first_name": "Ada", "last_name": fmt.Sprintf("Lovelace%d", n),
		"email":        fmt.Sprintf("ada%d@example.com", n),
		"country_code": "1", "phone_number": fmt.Sprintf("41555%05d", n),
	}
}

// createUser makes a user of the app with creds through the API.
func createUser(t testing.TB, env *servicetest.Env, creds payouts.Credentials) payouts.User {
	t.Helper()
	return servicetest.Want[payouts.User](t, env.DoAs(t, creds, "POST", "/v2/users", userBody()), "create user", http.StatusCreated)
}

// deposit funds the app with creds.
func deposit(t testing.TB, env *servicetest.Env, creds payouts.Credentials, amount int64) payouts.Transfer {
	t.Helper()
	resp := env.DoAs(t, creds, "POST", "/v2/apps/"+creds.AppID+"/deposit", map[string]any{"amount": amount})
	return servicetest.Want[payouts.Transfer](t, resp, "deposit", http.StatusOK)
}

// transfer moves amount between the app and the user (negative: app -> user).
func transfer(t *testing.T, env *servicetest.Env, creds payouts.Credentials, userID string, amount int64) payouts.Transfer {
	t.Helper()
	resp := env.DoAs(t, creds, "POST", "/v2/transfers", map[string]any{"user_id": userID, "amount": amount})
	return servicetest.Want[payouts.Transfer](t, resp, fmt.Sprintf("transfer %d", amount), http.StatusOK)
}

// world is a service with two apps, each with a funded user who received money.
type world struct {
	env   *servicetest.Env
	app   payouts.Credentials
	other payouts.Credentials

	user, otherUser         payouts.User
	transfer, otherTransfer payouts.Transfer
}

func newWorld(t *testing.T, opts ...servicetest.Option) *world {
	t.Helper()
	env := servicetest.Start(t, opts...)
	w := &world{env: env, app: env.Credentials(), other: env.CreateApp(t, "Other app")}
	for _, side := range []struct {
		creds payouts.Credentials
		user  *payouts.User
		tr    *payouts.Transfer
	}{{w.app, &w.user, &w.transfer}, {w.other, &w.otherUser, &w.otherTransfer}} {
		deposit(t, env, side.creds, 100_000_00)
		*side.user = createUser(t, env, side.creds)
		*side.tr = transfer(t, env, side.creds, side.user.ID, -50_00)
	}
	return w
}

// getUser reads a user through the API.
func getUser(t *testing.T, env *servicetest.Env, id string) payouts.User {
	t.Helper()
	return servicetest.Want[payouts.User](t, env.Do(t, "GET", "/v2/users/"+id, nil), "get user", http.StatusOK)
}

// getApp reads the app with creds through the API.
func getApp(t *testing.T, env *servicetest.Env, creds payouts.Credentials) payouts.App {
	t.Helper()
	return servicetest.Want[payouts.App](t, env.DoAs(t, creds, "GET", "/v2/apps/"+creds.AppID, nil), "get app", http.StatusOK)
}

// frozen is the package's frozen options on the engine's database.
func (e engine) frozen() []servicetest.Option { return append(e.opts(), frozen()...) }

// startWithUser starts the service with opts, deposits funds into its first app and makes one
// user of that app: the start of most scenarios.
func startWithUser(t *testing.T, funds int64, opts ...servicetest.Option) (*servicetest.Env, payouts.Credentials, payouts.User) {
	t.Helper()
	env := servicetest.Start(t, opts...)
	creds := env.Credentials()
	deposit(t, env, creds, funds)
	return env, creds, createUser(t, env, creds)
}
