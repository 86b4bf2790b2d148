package servicetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// Response is an answer of the service, read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode unmarshals the body into v, failing t when it is not the JSON of v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("servicetest: decode %d response %q: %v", r.Status, r.Body, err)
	}
}

// Want fails t, naming what was asked, unless r has one of the statuses, and returns r's body
// decoded as a T.
func Want[T any](t testing.TB, r *Response, what string, statuses ...int) T {
	t.Helper()
	if !slices.Contains(statuses, r.Status) {
		t.Fatalf("%s: %d %s", what, r.Status, r.Body)
	}
	var v T
	r.Decode(t, &v)
	return v
}

// Error decodes the API's error body, failing t when the body is not one.
func (r *Response) Error(t testing.TB) *payouts.Error {
	t.Helper()
	var e payouts.Error
	r.Decode(t, &e)
	if e.Code == "" {
		t.Fatalf("servicetest: %d response %q is not an API error", r.Status, r.Body)
	}
	return &e
}

// NewRequest makes a request to the API path (such as /v2/users) with the first app's
// credentials. body is sent as is when it is a string or []byte, as JSON otherwise, and not at
// all when nil; a request with a body says Content-Type: application/json.
func (e *Env) NewRequest(t testing.TB, method, path string, body any) *http.Request {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewReader([]byte(b))
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("servicetest: encode body: %v", err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.URL+path, r)
	if err != nil {
		t.Fatalf("servicetest: %v", err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.SetBasicAuth(e.ClientID, e.APIKey)
	return req
}

// Send sends req and reads the whole answer.
func (e *Env) Send(t testing.TB, req *http.Request) *Response {
	t.Helper()
	resp, err := e.HTTP.Do(req)
	if err != nil {
		t.Fatalf("servicetest: %s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("servicetest: %s %s: read body: %v", req.Method, req.URL.Path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Do sends a request as the first app, as NewRequest describes.
func (e *Env) Do(t testing.TB, method, path string, body any) *Response {
	t.Helper()
	return e.Send(t, e.NewRequest(t, method, path, body))
}

// DoAs sends a request with another app's credentials.
func (e *Env) DoAs(t testing.TB, creds payouts.Credentials, method, path string, body any) *Response {
	t.Helper()
	req := e.NewRequest(t, method, path, body)
	req.SetBasicAuth(creds.ClientID, creds.APIKey)
	return e.Send(t, req)
}
