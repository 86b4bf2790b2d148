package api_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestPagination walks 250 transfers forward with starting_after and back with ending_before,
// at several page sizes: no gap, no duplicate, newest first, and has_more right at both ends.
func TestPagination(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startWithUser(t, 1_000_00, engine.opts()...)
			const n = 250
			var made []string // oldest first
			for i := 0; i < n; i++ {
				made = append(made, transfer(t, env, creds, user.ID, -1).ID)
			}
			slices.Reverse(made) // the API lists newest first

			for _, limit := range []int{1, 7, 50, 100} {
				t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
					page := func(cursor, id string) payouts.List[payouts.Transfer] {
						t.Helper()
						q := url.Values{"user_id": {user.ID}, "limit": {fmt.Sprint(limit)}}
						if cursor != "" {
							q.Set(cursor, id)
						}
						var l payouts.List[payouts.Transfer]
						call{method: "GET", path: "/v2/transfers?" + q.Encode(), status: 200}.do(t, env).Decode(t, &l)
						if len(l.Data) > limit {
							t.Fatalf("page of %d transfers for limit %d", len(l.Data), limit)
						}
						return l
					}

					// Forward, from the newest.
					var forward []string
					l := page("", "")
					for {
						for _, tr := range l.Data {
							forward = append(forward, tr.ID)
						}
						if !l.HasMore {
							break
						}
						if len(l.Data) != limit {
							t.Fatalf("a page with has_more holds %d transfers, want %d", len(l.Data), limit)
						}
						l = page("starting_after", l.Data[len(l.Data)-1].ID)
					}
					if !slices.Equal(forward, made) {
						t.Fatalf("forward walk: %d transfers, want the %d made, newest first, each once", len(forward), n)
					}

					// Back, from the oldest: each page is the one just newer than the cursor.
					backward := []string{made[n-1]}
					l = page("ending_before", made[n-1])
					for {
						ids := make([]string, len(l.Data))
						for i, tr := range l.Data {
							ids[i] = tr.ID
						}
						backward = append(ids, backward...)
						if !l.HasMore {
							break
						}
						l = page("ending_before", l.Data[0].ID)
					}
					if !slices.Equal(backward, made) {
						t.Fatalf("backward walk: %d transfers, want the %d made, each once", len(backward), n)
					}

					// Past either end there is nothing.
					if l := page("ending_before", made[0]); len(l.Data) != 0 || l.HasMore {
						t.Errorf("before the newest: %d transfers, has_more %v", len(l.Data), l.HasMore)
					}
					if l := page("starting_after", made[n-1]); len(l.Data) != 0 || l.HasMore {
						t.Errorf("after the oldest: %d transfers, has_more %v", len(l.Data), l.HasMore)
					}
				})
			}
		})
	}
}

// engine is a database the scenario tests run on.
type engine struct {
	name string
	opts func() []servicetest.Option
}

var engines = []engine{
	{"SQLite", func() []servicetest.Option { return nil }},
	{"PostgreSQL", func() []servicetest.Option { return []servicetest.Option{servicetest.WithPostgres()} }},
}
