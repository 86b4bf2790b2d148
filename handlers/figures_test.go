package handlers_test

import (
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/web"
)

// figurePattern finds the figures of a page: money amounts ($1,234.56) and the counts a page
// marks with a data-testid.
var figurePattern = regexp.MustCompile(`-?\$[0-9][0-9,]*\.[0-9]{2}|data-testid="[a-z-]+">[0-9][0-9,]*<`)

// figuresOf lists a page's figures, in the order they appear.
func figuresOf(body string) []string {
	return figurePattern.FindAllString(html.UnescapeString(body), -1)
}

// figureDifferences are the pages whose figures differ between our service and the public API,
// by route and, for a page with a filter set, the names of its query's parameters
// ("/transactions?user_id"), each with the sentence the page shows on the public API to say
// why. Nothing else may differ.
var figureDifferences = map[string]string{
	// The public API sends metrics.wallet_balance alone: no available, no reserved amount.
	"/app":      "This API reports the app wallet's balance only, not how much of it is available or reserved.",
	"/bulk/:id": "App wallet balance (this API does not say how much is available)",
	// Counts and totals come from the service's stats and summaries, which the public API lacks.
	"/overview":              "The overview's figures (the wallet, today's payouts, what needs attention, the volume chart): not available on this API",
	"/transfers":             "The count and totals of the filtered transfers: not available on this API",
	"/transactions":          "The count and totals of the filtered transactions: not available on this API",
	"/transfers?status&type": "The count and totals of the filtered transfers: not available on this API",
	"/transfers?min&user_id": "The count and totals of the filtered transfers: not available on this API",
	"/transactions?max&min":  "The count and totals of the filtered transactions: not available on this API",
	// Without a filter of lines by user, a user's lines are those of the user's transfers: the
	// app's fee line of the user's payout among them.
	"/transactions?user_id": "Filtered here over all 3 transactions of this user's transfers (this API cannot filter them by user",
	"/statement":            "Statements: not available on this API",
	"/search?q":             "Finding objects by a short id or the beginning of an id: not available on this API",
}

// figureKey is the key of figureDifferences a page is listed under.
func figureKey(rc routeCase) string {
	_, query, found := strings.Cut(rc.url, "?")
	if !found {
		return rc.path
	}
	values, _ := url.ParseQuery(query)
	names := slices.Sorted(maps.Keys(values))
	return rc.path + "?" + strings.Join(names, "&")
}

// TestFiguresOnBothBackends opens every page as every role that may, on two dashboards over the
// same data: one talking to our service, one to the strict stand-in for the public API in front
// of it. Each page's money amounts and counts are the same on both, except on the pages
// figureDifferences names, which say why on the public API.
func TestFiguresOnBothBackends(t *testing.T) {
	h := newHarnessWith(t, harnessSetup{public: true})
	direct := h.twin(harnessSetup{}) // the same service and store, without the stand-in
	user := h.fundedUser("Fiona", "Figures", 60_00)
	routes := routesWithObjects(t, h, user, h.flaggedPayout(user))
	pages := slices.Clone(routes)
	for _, u := range filteredPages(user) {
		rc := routeOf(t, routes, u)
		rc.url = u
		pages = append(pages, rc)
	}
	var mu sync.Mutex
	explained := map[string]bool{}
	// The roles run side by side, to keep the test short under -race in CI.
	t.Run("roles", func(t *testing.T) {
		for _, role := range dashstore.Roles {
			public, op := h.signedIn(role)
			ours := direct.agent()
			ours.login(op.Email, "correct horse "+string(role)) // as addOperator set it
			t.Run(string(role), func(t *testing.T) {
				t.Parallel()
				for _, key := range differingPages(t, role, pages, public, ours) {
					mu.Lock()
					explained[key] = true
					mu.Unlock()
				}
			})
		}
	})
	for path := range figureDifferences {
		if !explained[path] {
			t.Errorf("%s is listed as differing but showed the same figures for every role", path)
		}
	}
}

// differingPages opens each page role may as public and as ours, compares their figures, and
// returns the keys of figureDifferences of the pages that differ as that list says.
func differingPages(t *testing.T, role dashstore.Role, pages []routeCase, public, ours *agent) []string {
	var explained []string
	for _, rc := range pages {
		if rc.method != fiber.MethodGet || !web.Can(role, rc.perm) || rc.path == "/login" || rc.path == "/" ||
			rc.path == "/users/:id/payout-methods/routing-number" || strings.HasPrefix(rc.path, "/static") ||
			strings.HasSuffix(rc.path, "/export") || slices.Contains(downloadsOfGeneratedForms, rc.path) {
			continue
		}
		viaPublic, viaOurs := public.get(rc.url), ours.get(rc.url)
		if viaPublic.StatusCode != http.StatusOK || viaOurs.StatusCode != http.StatusOK {
			t.Errorf("GET %s as %s: status %d on the public API, %d on ours", rc.url, role, viaPublic.StatusCode, viaOurs.StatusCode)
			continue
		}
		got, want := figuresOf(viaPublic.body), figuresOf(viaOurs.body)
		if slices.Equal(got, want) {
			continue
		}
		key := figureKey(rc)
		why, listed := figureDifferences[key]
		switch {
		case !listed:
			t.Errorf("GET %s as %s: figures on the public API %v, on ours %v, and the page is not listed as differing", rc.url, role, got, want)
		case !strings.Contains(html.UnescapeString(viaPublic.body), why):
			t.Errorf("GET %s as %s: figures differ (%v, ours %v) and the page does not say %q", rc.url, role, got, want, why)
		default:
			explained = append(explained, key)
		}
	}
	return explained
}
