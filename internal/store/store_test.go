package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// engines runs a test against a fresh store of each engine: the conformance suite.
func engines(t *testing.T, test func(t *testing.T, st *store.Store)) {
	t.Helper()
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, st)
	})
}

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func newApp(t testing.TB, st *store.Store, name string) string {
	t.Helper()
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(name)*1000+int(name[0]))
	if err := st.CreateApp(context.Background(), &service.AppRecord{ID: id, Name: name, ClientID: "ck_" + name,
		Created: t0}); err != nil {
		t.Fatal(err)
	}
	return id
}

func userID(n int) string { return fmt.Sprintf("10000000-0000-4000-8000-%012d", n) }

func newUser(t *testing.T, q interface {
	CreateUser(context.Context, *service.UserRecord) error
}, appID string, n int, email string) *service.UserRecord {
	t.Helper()
	u := &service.UserRecord{AppID: appID, User: payouts.User{ID: userID(n), FirstName: "User", LastName: fmt.Sprint(n),
		Email: email, PhoneNumber: payouts.Phone{CountryCode: "1", PhoneNumber: fmt.Sprintf("41555%05d", n)},
		Status: payouts.UserUnverified, Created: payouts.NewTime(t0)}}
	if err := q.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestApps(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		id := newApp(t, st, "acme")
		got, err := st.AppByClientID(ctx, "ck_acme")
		if err != nil || got.ID != id || !got.Created.Equal(t0) {
			t.Fatalf("AppByClientID = %+v, %v", got, err)
		}
		if _, err := st.GetApp(ctx, "00000000-0000-4000-8000-999999999999"); !errors.Is(err, service.ErrNoRecord) {
			t.Fatalf("unknown app: %v", err)
		}
		err = st.CreateApp(ctx, &service.AppRecord{ID: "x", Name: "dup", ClientID: "ck_acme", Created: t0})
		if !sqldb.IsUniqueViolation(err) {
			t.Fatalf("duplicate client id: %v", err)
		}
	})
}

func TestLedgerGuard(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		bank, _ := st.EnsureAccount(ctx, appID, ledger.External, "bank")
		rail, _ := st.EnsureAccount(ctx, appID, ledger.External, "rail")
		wallet, _ := st.EnsureAccount(ctx, appID, ledger.AppWallet, "")
		again, err := st.EnsureAccount(ctx, appID, ledger.AppWallet, "")
		if err != nil || again.ID != wallet.ID {
			t.Fatalf("EnsureAccount is not idempotent: %v %v", again, err)
		}
		if err := st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, payment(appID, bank.ID, wallet.ID, 100)) }); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			change ledger.Change
			want   error
		}{
			{"spend within balance", ledger.Change{Op: ledger.OpReserve, Posting: payment(appID, wallet.ID, bank.ID, 60)}, nil},
			{"overdraw the rest", ledger.Change{Op: ledger.OpPost, Posting: payment(appID, wallet.ID, bank.ID, 41)}, service.ErrOverdraft},
			{"spend exactly the rest", ledger.Change{Op: ledger.OpPost, Posting: payment(appID, wallet.ID, bank.ID, 40)}, nil},
			{"external may go negative", ledger.Change{Op: ledger.OpPost, Posting: payment(appID, bank.ID, rail.ID, 1000)}, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := st.InTx(ctx, func(q service.Queries) error { return postChanges(ctx, q, []ledger.Change{tc.change}, wallet.ID) })
				if !errors.Is(err, tc.want) {
					t.Fatalf("Post = %v, want %v", err, tc.want)
				}
			})
		}
		a, _ := st.FindAccount(ctx, appID, ledger.AppWallet, "")
		if a.Available() != 0 || a.Balance() != 60 {
			t.Fatalf("wallet balance %d available %d, want 60 and 0", a.Balance(), a.Available())
		}
		// An unguarded write that would overdraw is still refused by the CHECK constraint.
		err = st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, payment(appID, wallet.ID, bank.ID, 1)) })
		if err == nil {
			t.Fatal("the database accepted an overdraft")
		}
	})
}

// TestConcurrentDebits races writers for one balance: exactly as many succeed as it covers.
func TestConcurrentDebits(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		appID, bank, wallet := fundedWallet(t, st, 100)
		ok, refused := raceDebits(t, []*store.Store{st}, bank, wallet, 25, 10)
		a, _ := st.FindAccount(context.Background(), appID, ledger.AppWallet, "")
		if ok != 10 || refused != 15 || a.Balance() != 0 {
			t.Fatalf("%d debits went through and %d were refused, balance %d; want 10, 15, 0", ok, refused, a.Balance())
		}
	})
}

func TestUsers(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		other := newApp(t, st, "other")
		u := newUser(t, st, appID, 1, "Ada@Example.com")
		tests := []struct {
			name string
			rec  service.UserRecord
			code string
		}{
			{"email taken, other case", service.UserRecord{AppID: appID, User: payouts.User{ID: userID(2), Email: "ada@example.COM"}}, payouts.EEmailExists},
			{"same email in another app", service.UserRecord{AppID: other, User: payouts.User{ID: userID(3), Email: "ada@example.com"}}, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tc.rec.Status, tc.rec.Created = payouts.UserUnverified, payouts.NewTime(t0)
				err := st.CreateUser(ctx, &tc.rec)
				if payouts.ErrorCode(err) != tc.code {
					t.Fatalf("CreateUser = %v, want code %q", err, tc.code)
				}
			})
		}
		if _, err := st.GetUser(ctx, other, u.ID); !errors.Is(err, service.ErrNoRecord) {
			t.Fatalf("another app read the user: %v", err)
		}
		u.Compliance.MustCollect1099 = true
		u.Metadata = payouts.Metadata(`{"k":"v"}`)
		if err := st.UpdateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		got, err := st.GetUser(ctx, appID, u.ID)
		if err != nil || !got.Compliance.MustCollect1099 || string(got.Metadata) != `{"k":"v"}` {
			t.Fatalf("GetUser = %+v, %v", got, err)
		}
		if err := st.DeleteUser(ctx, appID, u.ID, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.GetUser(ctx, appID, u.ID); !errors.Is(err, service.ErrNoRecord) {
			t.Fatalf("deleted user still readable: %v", err)
		}
		newUser(t, st, appID, 4, "ada@example.com") // the email is free again
	})
}

// TestSearch finds users and payout links by phone in any common format and by name in any
// order, the same on both engines.
func TestSearch(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		people := []payouts.Payee{
			{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", CountryCode: "1", PhoneNumber: "4155132552"},
			{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com", CountryCode: "1", PhoneNumber: "2125550199"},
		}
		for i, p := range people {
			if err := st.CreateUser(ctx, &service.UserRecord{AppID: appID, User: payouts.User{ID: userID(i + 1), FirstName: p.FirstName,
				LastName: p.LastName, Email: p.Email, PhoneNumber: payouts.Phone{CountryCode: p.CountryCode, PhoneNumber: p.PhoneNumber},
				Status: payouts.UserUnverified, Created: payouts.NewTime(t0)}}); err != nil {
				t.Fatal(err)
			}
			if err := st.CreatePayoutLink(ctx, &service.PayoutLinkRecord{AppID: appID, Updated: t0, PayoutLink: payouts.PayoutLink{
				ID: fmt.Sprintf("20000000-0000-4000-8000-%012d", i+1), Amount: 1_00, Status: payouts.LinkSent, Payee: p,
				Delivery: payouts.Delivery{Method: payouts.DeliveryLink}, Created: payouts.NewTime(t0)}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			search string
			want   string // the first name found, "" for none
		}{
			{"(415) 513-2552", "Ada"},
			{"415-513-2552", "Ada"},
			{"513-2552", "Ada"},
			{"+1 415 513 2552", "Ada"},
			{"lovelace ada", "Ada"},
			{"HOPPER grace", "Grace"},
			{"lovelace grace", ""},
			{"(415) 513-2553", ""},
			{"50%", ""},
		} {
			t.Run(tc.search, func(t *testing.T) {
				users, _, err := st.ListUsers(ctx, appID, payouts.Page{Limit: 10}, payouts.UserFilter{Search: tc.search})
				if err != nil {
					t.Fatal(err)
				}
				links, _, err := st.ListPayoutLinks(ctx, appID, payouts.Page{Limit: 10}, payouts.PayoutLinkFilter{Search: tc.search})
				if err != nil {
					t.Fatal(err)
				}
				var gotUsers, gotLinks []string
				for _, u := range users {
					gotUsers = append(gotUsers, u.FirstName)
				}
				for _, l := range links {
					gotLinks = append(gotLinks, l.Payee.FirstName)
				}
				want := []string{tc.want}
				if tc.want == "" {
					want = nil
				}
				if fmt.Sprint(gotUsers) != fmt.Sprint(want) || fmt.Sprint(gotLinks) != fmt.Sprint(want) {
					t.Errorf("search %q found users %v and links of %v, want %v", tc.search, gotUsers, gotLinks, want)
				}
			})
		}
	})
}

// TestPagination walks a list both ways: no gap, no duplicate, has_more right at both ends.
func TestPagination(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		const n = 37
		for i := 1; i <= n; i++ {
			newUser(t, st, appID, i, fmt.Sprintf("u%d@example.com", i))
		}
		var forward []string
		page := payouts.Page{Limit: 10}
		for {
			users, more, err := st.ListUsers(ctx, appID, page, payouts.UserFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range users {
				forward = append(forward, u.ID)
			}
			if !more {
				break
			}
			page.StartingAfter = users[len(users)-1].ID
		}
		if len(forward) != n || forward[0] != userID(n) || forward[n-1] != userID(1) {
			t.Fatalf("forward walk saw %d users from %s to %s", len(forward), forward[0], forward[len(forward)-1])
		}
		var backward []string
		page = payouts.Page{Limit: 10, EndingBefore: forward[n-1]}
		for {
			users, more, err := st.ListUsers(ctx, appID, page, payouts.UserFilter{})
			if err != nil {
				t.Fatal(err)
			}
			backward = append(append([]string{}, idsOf(users)...), backward...)
			if !more {
				break
			}
			page.EndingBefore = users[0].ID
		}
		if strings.Join(backward, ",") != strings.Join(forward[:n-1], ",") {
			t.Fatalf("backward walk differs from forward walk")
		}
		_, _, err := st.ListUsers(ctx, appID, payouts.Page{Limit: 10, StartingAfter: userID(999)}, payouts.UserFilter{})
		if !errors.Is(err, service.ErrNoRecord) {
			t.Fatalf("unknown cursor: %v", err)
		}
		found, _, err := st.ListUsers(ctx, appID, payouts.Page{Limit: 10}, payouts.UserFilter{Search: "U17@EXAMPLE"})
		if err != nil || len(found) != 1 || found[0].ID != userID(17) {
			t.Fatalf("search found %v, %v", idsOf(found), err)
		}
		found, _, _ = st.ListUsers(ctx, appID, payouts.Page{Limit: 10}, payouts.UserFilter{Search: "%"})
		if len(found) != 0 {
			t.Fatalf("a %% search matched %d users: wildcards must be escaped", len(found))
		}
	})
}

func idsOf(users []service.UserRecord) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.ID
	}
	return out
}

func TestIdempotencyKeys(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		k := &service.IdempotencyRecord{AppID: appID, Key: "k1", Operation: "transfer", RequestHash: "h", Created: t0}
		prior, err := st.ClaimIdempotencyKey(ctx, k)
		if err != nil || prior != nil {
			t.Fatalf("first claim = %v, %v", prior, err)
		}
		if err := st.FinishIdempotencyKey(ctx, appID, "k1", "res"); err != nil {
			t.Fatal(err)
		}
		prior, err = st.ClaimIdempotencyKey(ctx, k)
		if err != nil || prior == nil || prior.ResourceID != "res" || prior.RequestHash != "h" {
			t.Fatalf("second claim = %+v, %v", prior, err)
		}
	})
}

func TestPayoutMethodUpsert(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		u := newUser(t, st, appID, 1, "a@example.com")
		save := func(id, desc string) string {
			m := &service.PayoutMethodRecord{AppID: appID, UserID: u.ID, Fingerprint: "fp", SealedAccount: []byte{1, 2},
				PayoutMethod: payouts.PayoutMethod{ID: id, Platform: payouts.PlatformACH, Description: desc, Country: "US",
					Currency: "USD", Created: payouts.NewTime(t0)}}
			if err := st.SavePayoutMethod(ctx, m); err != nil {
				t.Fatal(err)
			}
			return m.ID
		}
		first := save("20000000-0000-4000-8000-000000000001", "old")
		second := save("20000000-0000-4000-8000-000000000002", "new")
		if first != second {
			t.Fatalf("saving the same account again made a new method")
		}
		if err := st.SetDefaultPayoutMethod(ctx, appID, u.ID, first); err != nil {
			t.Fatal(err)
		}
		methods, err := st.ListPayoutMethods(ctx, appID, u.ID)
		if err != nil || len(methods) != 1 || methods[0].Description != "new" || !methods[0].Default || len(methods[0].SealedAccount) != 2 {
			t.Fatalf("ListPayoutMethods = %+v, %v", methods, err)
		}
	})
}

// TestListPayoutMethodsOfUsers: the methods of several users come in one read, newest first,
// each user's default marked, never a method of another app's user; the read finds them by the
// users' index, even before the table's first ANALYZE.
func TestListPayoutMethodsOfUsers(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, otherApp := newApp(t, st, "acme"), newApp(t, st, "other")
		save := func(app, user string, n int) string {
			m := &service.PayoutMethodRecord{AppID: app, UserID: user, Fingerprint: fmt.Sprint("fp", n),
				PayoutMethod: payouts.PayoutMethod{ID: fmt.Sprintf("20000000-0000-4000-8000-%012d", n),
					Platform: payouts.PlatformPayPal, Email: fmt.Sprint(n, "@example.com"), Created: payouts.NewTime(t0)}}
			if err := st.SavePayoutMethod(ctx, m); err != nil {
				t.Fatal(err)
			}
			return m.ID
		}
		for n := range 300 {
			newUser(t, st, appID, n, fmt.Sprintf("user%d@example.com", n))
			save(appID, userID(n), n)
		}
		stranger := newUser(t, st, otherApp, 300, "stranger@example.com")
		save(otherApp, stranger.ID, 300)
		newest := save(appID, userID(7), 301)
		if err := st.SetDefaultPayoutMethod(ctx, appID, userID(7), newest); err != nil {
			t.Fatal(err)
		}
		methods, err := st.ListPayoutMethods(ctx, appID, userID(7), userID(9), stranger.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range methods {
			got = append(got, fmt.Sprintf("%s %s %v", m.UserID[len(m.UserID)-3:], m.ID[len(m.ID)-3:], m.Default))
		}
		if want := []string{"007 301 true", "009 009 false", "007 007 false"}; !slices.Equal(got, want) {
			t.Errorf("methods %q, want %q", got, want)
		}
		query := `SELECT m.id FROM payout_methods m JOIN users u ON u.id = m.user_id
			WHERE m.app_id = ? AND m.user_id IN (?, ?, ?, ?) ORDER BY m.seq DESC`
		p := queryPlan(t, st, query, appID, userID(1), userID(2), userID(3), userID(4))
		if !strings.Contains(p, "payout_methods_user (app_id=? AND user_id=?)") && !strings.Contains(p, "user_id = ANY") {
			t.Errorf("the users' methods are not found by the users' index:\n%s", p)
		}
	})
}

// TestPostingsOfTransfersPlan: the postings of a page of transfers are found through the
// (app_id, transfer_id) index, not by walking the app's ledger.
func TestPostingsOfTransfersPlan(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var id, parent, notused int
	var detail string
	err = st.DB().QueryRow(`EXPLAIN QUERY PLAN SELECT id FROM postings WHERE app_id = ? AND transfer_id IN (?, ?)`,
		"a", "t1", "t2").Scan(&id, &parent, &notused, &detail)
	if err != nil || !strings.Contains(detail, "postings_transfer") {
		t.Fatalf("plan %q (%v) does not use postings_transfer", detail, err)
	}
}
