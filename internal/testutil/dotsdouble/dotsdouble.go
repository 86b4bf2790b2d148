// Package dotsdouble is a strict stand-in for the public Dots payouts API in tests: an
// http.Handler in front of a real Payout Service that passes on only the routes and query
// parameters the public API has, as its published TypeScript SDK calls them. Every other route
// answers 404 `not-found`, as the public service does, every other query parameter is
// stripped, as the public service ignores it, and every field of an answer that the public
// response models do not declare is dropped (models.go), as the public service never sends it. A dashboard or client run against it sees what it
// would see on a Dots account: none of our extensions (docs/API.md lists them).
//
//	env := servicetest.Start(t)
//	base := dotsdouble.Start(t, env.URL) // use base where env.URL would go
package dotsdouble

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// route is one public endpoint: its method, its path below the base with {uuid} and {int} for
// the ids in it, and the query parameters it reads.
type route struct {
	method string
	path   string
	query  []string
	reply  fields // the public model of a 2xx answer's body; nil passes it whole
}

// page is the query of every public list.
var page = []string{"limit", "starting_after", "ending_before"}

// routes is the public API's table, written from its reference: nothing of ours is in it.
var routes = []route{
	{http.MethodPost, "/v2/apps", nil, app},
	{http.MethodGet, "/v2/apps", page, list(app)},
	{http.MethodGet, "/v2/apps/{uuid}", nil, app},
	{http.MethodPost, "/v2/apps/{uuid}/deposit", nil, transfer},
	{http.MethodPost, "/v2/apps/{uuid}/withdraw", nil, transfer},
	{http.MethodPut, "/v2/apps/{uuid}/ach-account", nil, achAccount},
	{http.MethodGet, "/v2/apps/{uuid}/ach-account", nil, achAccount},
	{http.MethodPut, "/v2/apps/{uuid}/compliance", nil, nil},
	{http.MethodGet, "/v2/apps/{uuid}/compliance", nil, nil},

	{http.MethodPost, "/v2/organization-transfers", nil, transfer},
	{http.MethodGet, "/v2/organization-transfers", page, list(transfer)},
	{http.MethodGet, "/v2/organization-transfers/{uuid}", nil, transfer},

	{http.MethodPost, "/v2/users", nil, user},
	{http.MethodGet, "/v2/users", page, list(user)},
	{http.MethodGet, "/v2/users/{uuid}", nil, user},
	{http.MethodPatch, "/v2/users/{uuid}", nil, user},
	{http.MethodDelete, "/v2/users/{uuid}", nil, user},
	{http.MethodPost, "/v2/users/{uuid}/send-verification-token", nil, nil},
	{http.MethodPost, "/v2/users/{uuid}/verify", nil, nil},
	{http.MethodPut, "/v2/users/{uuid}/payout-methods", nil, paymentMethod},
	{http.MethodGet, "/v2/users/{uuid}/payout-methods", nil, paymentMethod},
	{http.MethodPut, "/v2/users/{uuid}/compliance", nil, nil},

	{http.MethodPost, "/v2/transfers", nil, transfer},
	{http.MethodGet, "/v2/transfers", append([]string{"user_id"}, page...), list(transfer)},
	{http.MethodGet, "/v2/transfers/{uuid}", nil, transfer},

	{http.MethodPost, "/v2/transfer-batches", nil, transferBatch},
	{http.MethodGet, "/v2/transfer-batches", page, list(transferBatch)},
	{http.MethodGet, "/v2/transfer-batches/{uuid}", nil, transferBatch},

	{http.MethodPost, "/v2/payouts", nil, transfer},
	{http.MethodPost, "/v2/payouts/send-payout", nil, payoutLink},

	{http.MethodPost, "/v2/payout-requests", nil, payoutRequest},
	{http.MethodGet, "/v2/payout-requests", page, list(payoutRequest)},
	{http.MethodGet, "/v2/payout-requests/{uuid}", nil, payoutRequest},

	{http.MethodPost, "/v2/payout-links", nil, payoutLink},
	{http.MethodGet, "/v2/payout-links", page, list(payoutLink)},
	{http.MethodGet, "/v2/payout-links/{uuid}", nil, payoutLink},
	{http.MethodDelete, "/v2/payout-links/{uuid}", nil, payoutLink},

	{http.MethodPost, "/v2/flows", nil, flow},
	{http.MethodGet, "/v2/flows", page, list(flow)},
	{http.MethodGet, "/v2/flows/{uuid}", nil, flow},

	{http.MethodGet, "/v2/transactions", page, list(transaction)},
	{http.MethodGet, "/v2/transactions/{int}", nil, transaction},
}

// Double routes the public API's requests to upstream and refuses the rest. It records what it
// refused, for a test to show.
type Double struct {
	// prefix is the path the API lives under, such as /api; upstream is the real service's base.
	prefix string
	proxy  *httputil.ReverseProxy

	mu       sync.Mutex
	refused  []string
	stripped []string
	dropped  []string
}

// New returns a double serving the API under prefix (such as "/api") and passing what the
// public API has on to upstream, the base URL of a Payout Service (http://host:port/api).
func New(prefix string, upstream *url.URL) *Double {
	d := &Double{prefix: strings.TrimRight(prefix, "/")}
	d.proxy = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(upstream)
		// SetURL joins the paths; the inbound one already carries the prefix.
		r.Out.URL.Path = strings.TrimRight(upstream.Path, "/") + strings.TrimPrefix(r.In.URL.Path, d.prefix)
		r.Out.URL.RawPath = ""
		r.Out.Host = upstream.Host
	}}
	return d
}

// Start serves a double in front of the service whose API base is upstream and returns the
// double's API base, to use where upstream would go. It stops when t ends.
func Start(t testing.TB, upstream string) (string, *Double) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatalf("dotsdouble: upstream %q: %v", upstream, err)
	}
	d := New(u.Path, u)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	return srv.URL + u.Path, d
}

// ServeHTTP passes a public route on, without the query parameters the public API does not
// read, and answers anything else 404.
func (d *Double) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, d.prefix+"/")
	clean := path.Clean("/" + rest)
	rt, found := match(r.Method, clean)
	if !ok || !found {
		d.note(&d.refused, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"error": "not-found", "message": "Not found."})
		return
	}
	q := r.URL.Query()
	kept := url.Values{}
	for name, vs := range q {
		if slices.Contains(rt.query, name) {
			kept[name] = vs
		} else {
			d.note(&d.stripped, r.Method+" "+clean+" ?"+name)
		}
	}
	out := r.Clone(r.Context())
	out.URL.Path = d.prefix + clean
	out.URL.RawPath = ""
	out.URL.RawQuery = kept.Encode()
	// The answer comes back through one proxy per request, which knows its public model.
	proxy := *d.proxy
	proxy.ModifyResponse = func(res *http.Response) error { return d.keepPublic(res, rt) }
	proxy.ServeHTTP(w, out)
}

// Refused lists the requests answered 404 because the public API has no such route, as
// "METHOD /path"; Stripped lists the query parameters dropped, as "METHOD /path ?name";
// Dropped lists the fields of answers the public models do not declare, as
// "METHOD /route .field.inner".
func (d *Double) Refused() []string  { return d.list(d.refused) }
func (d *Double) Stripped() []string { return d.list(d.stripped) }
func (d *Double) Dropped() []string  { return d.list(d.dropped) }

func (d *Double) list(l []string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), l...)
}

func (d *Double) note(l *[]string, s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	*l = append(*l, s)
}

// match finds the public route of method and p.
func match(method, p string) (route, bool) {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, rt := range routes {
		if rt.method == method && segmentsMatch(strings.Split(strings.Trim(rt.path, "/"), "/"), segs) {
			return rt, true
		}
	}
	return route{}, false
}

func segmentsMatch(pattern, segs []string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		switch p {
		case "{uuid}":
			if uuid.Validate(segs[i]) != nil {
				return false
			}
		case "{int}":
			if _, err := strconv.ParseUint(segs[i], 10, 63); err != nil {
				return false
			}
		default:
			if p != segs[i] {
				return false
			}
		}
	}
	return true
}
