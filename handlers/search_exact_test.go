package handlers_test

import (
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestSearchSuggestsTheExactMatchFirst: the header's suggestions show a few users; one whose
// whole name (or email) is what was typed comes first, however many newer users' names merely
// contain it.
func TestSearchSuggestsTheExactMatchFirst(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{sharedClock: true})
	exact := h.createUser("Jordan", "Lee")
	for _, last := range []string{"Leeds", "Leeward", "Leemon", "Leeson"} {
		h.clock.Advance(time.Minute)
		h.createUser("Jordan", last)
	}
	a, _ := h.signedIn(dashstore.RoleSupport)
	for _, q := range []string{"jordan lee", "JORDAN LEE", exact.Email} {
		t.Run(q, func(t *testing.T) {
			res := a.htmxGet("/search?q=" + url.QueryEscape(q))
			first := regexp.MustCompile(`href="/users/([^"]+)"`).FindStringSubmatch(res.body)
			if first == nil || first[1] != exact.ID {
				t.Errorf("the first user suggested is %v, want Jordan Lee (%s)", first, exact.ID)
			}
		})
	}
}
