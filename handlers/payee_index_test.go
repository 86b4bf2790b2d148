package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// seedUsers adds n users to the service, newer than every user made so far, written straight to
// its table (through the API it would take minutes): Seed User 1 … n, seedN@example.com, all
// with the phone +1 555 0100.
func seedUsers(t testing.TB, h *harness, n int) {
	t.Helper()
	db := h.env.Store.DB()
	series := fmt.Sprintf(`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < %d) `, n)
	err := db.InTx(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.ExecContext(context.Background(), db.Rebind(`INSERT INTO users (id, app_id, first_name, last_name,
			email, email_key, country_code, phone_number, status, search, created) `+series+`SELECT
			printf('10000000-0000-4000-8000-%012d', n), ?, 'Seed', 'User ' || n, 'seed' || n || '@example.com',
			'seed' || n || '@example.com', '1', '5550100', 'unverified', 'seed user ' || n || ' seed' || n || '@example.com',
			? + n FROM s`), h.env.AppID, h.clock.Now().UnixMicro())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mustCreateUser makes a user of that name, email and phone through the service, as setup.
func mustCreateUser(t testing.TB, h *harness, first, last, email, phone string) *payouts.User {
	t.Helper()
	u, err := h.payouts.CreateUser(context.Background(), payouts.CreateUserRequest{FirstName: first, LastName: last,
		Email: email, CountryCode: "1", PhoneNumber: phone})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestPayeeIndexOnTheDotsAPI is the payee picker on a Dots account of over a thousand users,
// through the strict stand-in for the public API (which cannot search users): a payee older than
// the newest thousand is found by name, email and phone; a text that names several is refused,
// naming every one; and a payout link and a flow are made for the payee chosen, and only then.
func TestPayeeIndexOnTheDotsAPI(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{public: true})
	olga := mustCreateUser(t, h, "Olga", "Older", "olga.older@example.com", "3125550177")
	oldMaria := mustCreateUser(t, h, "Maria", "Garcia", "maria.g.old@example.com", "2025550143")
	seedUsers(t, h, 1000)
	newMaria := mustCreateUser(t, h, "Maria", "Garcia", "maria.g@example.com", "2025550144")
	mustCreateUser(t, h, "Maria", "Garcia", "mgarcia@example.com", "2025550145")
	h.deposit(100_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)

	for _, tc := range []struct{ name, typed string }{
		{"by name", "older olga"}, {"by email", "OLGA.OLDER@example.com"}, {"by phone", "(312) 555-0177"},
	} {
		t.Run("an older payee "+tc.name, func(t *testing.T) {
			res := ops.get("/transfers?user=" + url.QueryEscape(tc.typed))
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, `name="user_id" value="`+olga.ID+`"`, `value="Olga Older"`)
		})
	}
	t.Run("every match counted", func(t *testing.T) {
		res := ops.get("/transactions?user=" + url.QueryEscape("Maria Garcia"))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "3 users match")
	})
	made := func(path string) int {
		t.Helper()
		var n int
		var err error
		if path == "/flows" {
			var l *payouts.List[payouts.Flow]
			l, err = h.payouts.ListFlows(context.Background(), payouts.Page{Limit: 10}, payouts.FlowFilter{})
			n = len(l.Data)
		} else {
			var l *payouts.List[payouts.PayoutLink]
			l, err = h.payouts.ListPayoutLinks(context.Background(), payouts.Page{Limit: 10}, payouts.PayoutLinkFilter{})
			n = len(l.Data)
		}
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, form := range []struct{ path, what string }{
		{"/payout-links", "a payout link"}, {"/flows", "a flow"},
	} {
		values := func(user string) url.Values {
			return url.Values{"user": {user}, "amount": {"10.00"}, "delivery.method": {"link"}, "steps.compliance": {"true"}}
		}
		t.Run(form.what+": an ambiguous payee refused", func(t *testing.T) {
			before := made(form.path)
			res := ops.post(form.path, values("maria.g"))
			wantStatus(t, res, http.StatusUnprocessableEntity)
			body := html.UnescapeString(res.body)
			for _, want := range []string{"2 users match “maria.g”", oldMaria.Email, newMaria.Email} {
				if !strings.Contains(body, want) {
					t.Errorf("the form sent back lacks %q", want)
				}
			}
			if n := made(form.path) - before; n != 0 {
				t.Errorf("%s: %d made", form.what, n)
			}
		})
		t.Run(form.what+" for the payee chosen", func(t *testing.T) {
			res := ops.post(form.path, values(oldMaria.Email))
			wantRedirect(t, res, form.path+"/")
			id := strings.TrimPrefix(res.Header.Get("Location"), form.path+"/")
			var got string
			if form.path == "/flows" {
				f, err := h.payouts.GetFlow(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				got = deref(f.UserID)
			} else {
				l, err := h.payouts.GetPayoutLink(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				got = deref(l.UserID)
			}
			if got != oldMaria.ID {
				t.Errorf("%s is for %q, want the older Maria %q", form.what, got, oldMaria.ID)
			}
		})
	}
}

// TestPayeeIndexIncomplete: while the index has not read every user of a large account, a text
// is refused rather than matched among those read so far, and says why; a user added since the
// last reading is found, being read first.
func TestPayeeIndexIncomplete(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("reads 6,500 users through the public API")
	}
	h := newHarnessWith(t, harnessSetup{public: true})
	mustCreateUser(t, h, "Olga", "Older", "olga.older@example.com", "3125550177")
	seedUsers(t, h, 6500) // more than three uses of the index read
	ops, _ := h.signedIn(dashstore.RoleOperations)
	res := ops.get("/users?q=olga")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "Searched the 2,100 users the dashboard has read so far", "some may be missing")
	nina := mustCreateUser(t, h, "Nina", "Newest", "nina@example.com", "3125550178")
	res = ops.get("/users?q=nina")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, nina.Email, "Searched the 4,101 users")
	res = ops.get("/transfers?user=olga")
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "has read 6,101 of this API&#39;s users so far", "choose by id")
	res = ops.get("/transfers?user=olga")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, `value="Olga Older"`)
}

// BenchmarkExportOnTheDotsAPI times the transfers export on a Dots account of 1,000 payees and
// 10,000 payout transfers, through the strict stand-in for the public API: one pass over the
// transfers, each payee named from the payee index, not one GET /v2/users/{id} per payee.
//
//	go test ./handlers -run '^$' -bench ExportOnTheDotsAPI -benchtime 3x
func BenchmarkExportOnTheDotsAPI(b *testing.B) {
	h := newHarnessWith(b, harnessSetup{public: true})
	seedUsers(b, h, 1000)
	seedTransfers(b, h, 10_000, `printf('10000000-0000-4000-8000-%012d', n % 1000 + 1)`)
	a, _ := h.signedIn(dashstore.RoleAdmin)
	for b.Loop() {
		res := a.get("/transfers/export")
		if res.StatusCode != http.StatusOK || strings.Count(res.body, "\n") != 10_001 || !strings.Contains(res.body, "seed1000@example.com") {
			b.Fatalf("export: status %d, %d lines", res.StatusCode, strings.Count(res.body, "\n"))
		}
	}
}
