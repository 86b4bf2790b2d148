package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// serviceDay is the day the service of withStripeACH makes its payouts on (UTC).
const serviceDay = "2026-03-02"

// withStripeACH serves ACH through the Stripe rail against the Stripe double, as
// `--rails ach=stripe` does, on a service whose clock stands still on serviceDay (so the rail is
// asked nothing after the payout's submission) and whose worker does not run.
func withStripeACH(t *testing.T) (harnessSetup, *stripetest.Server) {
	t.Helper()
	clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	double := stripetest.New(t, "", clock.Now)
	rail, err := stripe.New(stripe.Config{APIKey: "sk_test_123", FinancialAccount: "fa_123", WebhookSecret: "whsec_test",
		URL: double.URL, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return harnessSetup{service: []servicetest.Option{servicetest.WithClock(clock), servicetest.WithConfig(func(c *payoutd.Config) {
		c.WorkerInterval = -1
		c.Providers = []payoutd.RailProvider{{Name: "stripe", Rails: map[payouts.Platform]service.Rail{payouts.PlatformACH: rail}, Webhook: rail}}
	})}}, double
}

// TestAppPageRails: the app page names the rail of every platform where the service says it
// (Stripe for ACH as configured, the sandbox's elsewhere, with Cash App's reason), and on the
// public API says in one line that the provider runs them; with no sanctions list loaded it says
// nobody is screened.
func TestAppPageRails(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			setup, _ := withStripeACH(t)
			setup.public = b.public
			h := newHarnessWith(t, setup)
			a, _ := h.signedIn(dashstore.RoleManager)
			res := a.get("/app")
			wantStatus(t, res, http.StatusOK)
			_, section, _ := strings.Cut(res.body, `id="rails"`)
			section, _, _ = strings.Cut(section, "</section>")
			if b.public {
				wantSection(t, section, []string{apiNote, "The payouts provider runs the rails"}, []string{`data-testid="rail"`})
				return
			}
			wantSection(t, section, []string{`Bank account (ACH)</td>`, "Stripe Treasury", "PayPal</td>", "Venmo</td>",
				"Cash App has no public payouts API", "Sandbox", `data-testid="no-sanctions-list"`}, []string{apiNote})
			if n := strings.Count(section, `data-testid="rail"`); n != len(payouts.Platforms) {
				t.Errorf("the section names %d rails, want %d", n, len(payouts.Platforms))
			}
			if n := strings.Count(section, "test payouts: nobody is paid"); n != len(payouts.Platforms)-1 {
				t.Errorf("%d rails are called the sandbox's, want %d (all but ACH)", n, len(payouts.Platforms)-1)
			}
		})
	}
}

// wantSection fails t unless section holds each of want and none of not.
func wantSection(t *testing.T, section string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(section, w) {
			t.Errorf("the section lacks %q\n%s", w, section)
		}
	}
	for _, n := range not {
		if strings.Contains(section, n) {
			t.Errorf("the section holds %q\n%s", n, section)
		}
	}
}
