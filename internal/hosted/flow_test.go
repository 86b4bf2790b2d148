package hosted_test

import (
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPayoutLinkFlow walks a payee through every step of a payout link's flow with plain form
// posts, as a browser without JavaScript does, and checks what each step leaves behind, on both
// database engines.
func TestPayoutLinkFlow(t *testing.T) {
	t.Parallel()
	engines := []struct {
		name string
		opts []servicetest.Option
	}{
		{"sqlite", nil},
		{"postgres", []servicetest.Option{servicetest.WithPostgres()}},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { payoutLinkFlow(t, start(t, e.opts...)) })
	}
}

func payoutLinkFlow(t *testing.T, env *servicetest.Env) {
	fund(t, env, 100_00)
	link := createLink(t, env, map[string]any{"amount": 12_34, "memo": "March invoice",
		"force_collect_compliance_information": true,
		"additional_steps":                     []string{"id-verification", "background-check", "manage-payouts"}})
	flowID := *link.FlowID

	claim := get(t, env, link.Link)
	if claim.Status != http.StatusOK {
		t.Fatalf("claim page: %d", claim.Status)
	}
	claim.Has(t, "Test app", "$12.34", "March invoice", `href="/f/`+flowID+keyed(t, env, flowID)+`"`)

	first := get(t, env, "/f/"+flowID+keyed(t, env, flowID))
	first.Has(t, "Confirm it’s you", "$12.34", `name="phone_number"`)
	if strings.Contains(first.Body, `name="first_name"`) || strings.Contains(first.Body, "Step 1") {
		t.Error("the identify page asks for names before it knows the number is new, or counts itself a step")
	}

	// A new number: the page asks for names and email, without shouting "is required" yet.
	p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), url.Values{"country_code": {"1"}, "phone_number": {"415 555-0101"}})
	if p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("identify a new number without names: %d", p.Status)
	}
	p.Has(t, "We don’t know this number yet", `name="first_name"`, `name="email"`)
	if e := p.FieldError("first_name"); e != "" {
		t.Errorf("first_name shows %q before the payee saw the field", e)
	}

	who := ada("4155550101")
	p = post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), who)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("identify: %d\n%s", p.Status, p.Body)
	}
	pending := p.Session(t)
	verify := get(t, env, p.Location())
	verify.Has(t, "Enter your code", "+1 ••• 0101")

	p = post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {"000000"}})
	if p.Status != http.StatusUnprocessableEntity || p.FieldError("token") != "That code is not the one we sent. Check the latest message and try again." {
		t.Fatalf("wrong token: %d, token error %q", p.Status, p.FieldError("token"))
	}
	p = post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {env.Inbox.Token(t, "+1 4155550101")}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("verify: %d\n%s", p.Status, p.Body)
	}
	s := p.Session(t)

	steps := []struct {
		name string
		page []string // what the step's page shows
		path string
		form url.Values
	}{
		{payouts.StepCompliance, []string{"Tax information", `value="Ada"`, "Step 1 of 5"}, "compliance", url.Values{
			"form": {"w9"}, "w9.entity_type": {"individual"}, "w9.first_name": {"Ada"}, "w9.last_name": {"Lovelace"},
			"w9.date_of_birth": {"1990-12-10"}, "w9.tin": {"123-45-6789"}, "w9.address.line_1": {"1 Main St"},
			"w9.address.city": {"Springfield"}, "w9.address.state": {"IL"}, "w9.address.postcode": {"62701"},
			"w9.address.country": {"US"}}},
		{payouts.StepIDVerification, []string{"Identity check", "Step 2 of 5"}, "id-verification", url.Values{
			"ssn_last4": {"6789"}, "date_of_birth": {"1990-12-10"}}},
		{payouts.StepBackgroundCheck, []string{"Background check", "Disclosure"}, "background-check", url.Values{
			"consent": {"true"}, "name": {"Ada Lovelace"}}},
		{payouts.StepManagePayouts, []string{"Payout methods", "PayPal email"}, "payout-methods", url.Values{
			"platform": {"paypal"}, "email": {"ada@example.com"}}},
	}
	for i, st := range steps {
		page := openAs(t, env, flowID, s)
		page.Has(t, st.page...)
		p := post(t, env, "/f/"+flowID+"/"+st.path, withSession(page.Session(t), st.form))
		if p.Status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", st.name, p.Status, p.Body)
		}
		s = p.Session(t)
		if got := getFlow(t, env, flowID).CompletedSteps; len(got) != i+1 || !slices.Contains(got, st.name) {
			t.Fatalf("after %s the completed steps are %q", st.name, got)
		}
	}

	pay := openAs(t, env, flowID, s)
	pay.Has(t, "Get paid", "Pay out $12.34", "PayPal ada@example.com")
	methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, *getFlow(t, env, flowID).UserID)
	if err != nil || len(methods) != 1 {
		t.Fatalf("payout methods: %v %v", methods, err)
	}
	p = post(t, env, "/f/"+flowID+"/payout", url.Values{"s": {pay.Session(t)}, "account_id": {methods[0].ID}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("payout: %d\n%s", p.Status, p.Body)
	}
	done := get(t, env, p.Location())
	done.Has(t, "All done", "Your money is on its way.", "$12.34", "PayPal")

	r := env.Do(t, "GET", "/v2/payout-links/"+link.ID, nil)
	var claimed payouts.PayoutLink
	r.Decode(t, &claimed)
	if claimed.Status != payouts.LinkClaimed || claimed.ClaimedUserID == nil {
		t.Fatalf("link after the flow: %+v", claimed)
	}
	f := getFlow(t, env, flowID)
	if !f.Done() || *f.UserID != *claimed.ClaimedUserID {
		t.Fatalf("flow after the payout: %+v", f)
	}

	env.Clock.Advance(time.Minute)
	if _, err := env.Service.SettleDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	transfers, err := env.Service.ListTransfers(ctx, env.AppID, payouts.Page{Limit: 1},
		payouts.TransferFilter{UserID: *f.UserID, Type: payouts.TransferPayout})
	if err != nil || len(transfers.Data) != 1 {
		t.Fatalf("payouts of the payee: %v %v", transfers, err)
	}
	if tr := transfers.Data[0]; tr.Status != payouts.TransferCompleted || tr.Amount != 12_34 ||
		tr.PayoutLinkID == nil || *tr.PayoutLinkID != link.ID {
		t.Fatalf("payout: %+v", tr)
	}
	get(t, env, p.Location()).Has(t, "Your money has arrived.")
	get(t, env, "/f/"+flowID+keyed(t, env, flowID)).Has(t, "Every step of this page is complete.")
	get(t, env, link.Link).Has(t, "This payout has been claimed.")
}

// TestPayoutMethodSteps goes through manage-payments and manage-payouts: the first method saved
// completes a step, a payee who has methods continues with them, and one who has none cannot.
func TestPayoutMethodSteps(t *testing.T) {
	t.Parallel()
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []string{"manage-payments", "manage-payouts"}})
	s := signIn(t, env, f.ID, ada("4155550210"))

	page := openAs(t, env, f.ID, s)
	page.Has(t, "Payment methods", "Available to pay out", "PayPal email")
	if strings.Contains(page.Body, "Continue</button>") {
		t.Error("a payee without methods is offered to continue")
	}
	p := post(t, env, "/f/"+f.ID+"/manage-payments", url.Values{"s": {s}})
	if p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("continue without a method: %d", p.Status)
	}
	p.Has(t, "Add a payout method to continue.")

	// The bank form is one link away, no script needed.
	bank := openAs(t, env, f.ID, s, "platform", "ach")
	bank.Has(t, `name="routing_number"`, `name="account_type"`, "Save Bank account (ACH)")
	p = post(t, env, "/f/"+f.ID+"/payout-methods", withSession(bank.Session(t), url.Values{"platform": {"ach"},
		"routing_number": {"011000015"}, "account_number": {"000123456789"}, "account_type": {"checking"}}))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("add a bank account: %d\n%s", p.Status, p.Body)
	}
	page = get(t, env, p.Location())
	page.Has(t, "Payout methods", "Checking ••••6789", "Default", "Continue</button>", "Add another method")
	if strings.Contains(page.Body, "000123456789") {
		t.Error("the page shows the full account number")
	}
	p = post(t, env, "/f/"+f.ID+"/manage-payouts", url.Values{"s": {page.Session(t)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("continue with the saved method: %d\n%s", p.Status, p.Body)
	}
	if got := getFlow(t, env, f.ID); !got.Done() {
		t.Fatalf("flow: %+v", got)
	}
	get(t, env, p.Location()).Has(t, "All done", "Test app has everything it needs.")
}

// TestPayoutRefused: a method the rail refuses leaves the payout step open with the money back
// in the payee's wallet, and another method gets it paid.
func TestPayoutRefused(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 100_00)
	link := createLink(t, env, map[string]any{"amount": 40_00, "payout_fee_party": "user"})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("4155550220"))
	for _, email := range []string{"fail@example.com", "ada@example.com"} {
		if p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {email}})); p.Status != http.StatusSeeOther {
			t.Fatalf("add %s: %d\n%s", email, p.Status, p.Body)
		}
	}
	userID := strings.Split(s, ".")[1]
	methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, userID)
	if err != nil || len(methods) != 2 {
		t.Fatalf("methods: %v %v", methods, err)
	}
	byEmail := map[string]string{}
	for _, m := range methods {
		byEmail[m.Email] = m.ID
	}

	p := post(t, env, "/f/"+flowID+"/payout", url.Values{"s": {s}, "account_id": {byEmail["fail@example.com"]}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.FieldError("account_id"), "refused") {
		t.Fatalf("refused payout: %d, error %q", p.Status, p.FieldError("account_id"))
	}
	p.Has(t, "Pay out $40.00") // claimed now, the money waits in the wallet
	user, err := env.Service.GetUser(ctx, env.AppID, userID)
	if err != nil || user.Wallet.WithdrawableAmount != 40_00 {
		t.Fatalf("wallet after the refusal: %+v %v", user.Wallet, err)
	}

	p = post(t, env, "/f/"+flowID+"/payout", url.Values{"s": {s}, "account_id": {byEmail["ada@example.com"]}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("second payout: %d\n%s", p.Status, p.Body)
	}
	if f := getFlow(t, env, flowID); !f.Done() {
		t.Fatalf("flow: %+v", f)
	}
	env.Clock.Advance(time.Minute)
	if _, err := env.Service.SettleDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	list, err := env.Service.ListTransfers(ctx, env.AppID, payouts.Page{Limit: 10},
		payouts.TransferFilter{UserID: userID, Type: payouts.TransferPayout})
	if err != nil || len(list.Data) != 2 {
		t.Fatalf("payouts: %v %v", list, err)
	}
	if last := list.Data[0]; last.Status != payouts.TransferCompleted || last.Amount != 40_00 {
		t.Errorf("payout: %+v", last)
	}
	if first := list.Data[1]; first.Status != payouts.TransferFailed {
		t.Errorf("refused payout: %+v", first)
	}
}

func TestResendToken(t *testing.T) {
	t.Parallel()
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []string{"manage-payouts"}})
	p := post(t, env, "/f/"+f.ID+"/identify"+keyed(t, env, f.ID), ada("4155550230"))
	pending := p.Session(t)
	old := env.Inbox.Token(t, "+1 4155550230")

	// A code asked for again at once is refused with a word to wait; after the gap it comes.
	if p := post(t, env, "/f/"+f.ID+"/resend", url.Values{"s": {pending}}); p.Status != http.StatusTooManyRequests {
		t.Fatalf("resend at once: %d", p.Status)
	}
	env.Clock.Advance(30 * time.Second)
	p = post(t, env, "/f/"+f.ID+"/resend", url.Values{"s": {pending}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("resend: %d", p.Status)
	}
	get(t, env, p.Location()).Has(t, "We sent you a new code.")
	fresh := env.Inbox.Token(t, "+1 4155550230")
	if old != fresh {
		if p := post(t, env, "/f/"+f.ID+"/verify", url.Values{"s": {pending}, "token": {old}}); p.Status != http.StatusUnprocessableEntity {
			t.Errorf("the replaced token still works: %d", p.Status)
		}
	}
	if p := post(t, env, "/f/"+f.ID+"/verify", url.Values{"s": {pending}, "token": {fresh}}); p.Status != http.StatusSeeOther {
		t.Fatalf("the new token: %d\n%s", p.Status, p.Body)
	}

	// A form's address opened directly (a reload after an error) leads back to the flow.
	if p := get(t, env, "/f/"+f.ID+"/verify"); p.Status != http.StatusSeeOther || p.Location() != "/f/"+f.ID {
		t.Errorf("GET a form address: %d to %q", p.Status, p.Location())
	}
}

// TestCashAppFormSaysWhichNumbers: the public model asks a Cash App method for routing and
// account numbers beside the cashtag; the payee is told they are Cash App's own and where Cash
// App shows them, not pointed at a check, and the method saves with them.
func TestCashAppFormSaysWhichNumbers(t *testing.T) {
	t.Parallel()
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []string{"manage-payments"}})
	s := signIn(t, env, f.ID, ada("4155550211"))

	form := openAs(t, env, f.ID, s, "platform", "cash_app")
	form.Has(t, `name="cash_tag"`, "Cash App routing number", "Cash App account number", "tap Money, then Account &amp; routing")
	if strings.Contains(form.Body, "bottom left of a check") {
		t.Error("the Cash App form points the payee at a check")
	}
	p := post(t, env, "/f/"+f.ID+"/payout-methods", withSession(form.Session(t), url.Values{"platform": {"cash_app"},
		"cash_tag": {"$ada-pay"}, "routing_number": {"041215663"}, "account_number": {"9876543210"}}))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("add a Cash App method: %d\n%s", p.Status, p.Body)
	}
	if got := getFlow(t, env, f.ID); !got.Done() {
		t.Fatalf("flow after the Cash App method: %+v", got)
	}
}
