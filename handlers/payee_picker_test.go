package handlers_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestPayeePicker names payees without ids: forms and filters take a name, email or phone as
// typed (without JavaScript), choose the one user it finds, and answer several with a message
// naming them; a payee chosen on a page stays chosen only while the text still names them.
func TestPayeePicker(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	lovelace, byron := h.createUser("Ada", "Lovelace"), h.createUser("Ada", "Byron")
	grace := h.createUser("Grace", "Hopper")
	steps := func(v url.Values) url.Values { v.Set("steps.compliance", "true"); return v }

	for _, tc := range []struct {
		name   string
		form   url.Values
		want   string   // the user the flow is for; "" when the form comes back
		answer []string // in the form that comes back
	}{
		{"names in any order", url.Values{"user": {"lovelace ada"}}, lovelace.ID, nil},
		{"an exact email", url.Values{"user": {strings.ToUpper(grace.Email)}}, grace.ID, nil},
		{"an id typed", url.Values{"user": {byron.ID}}, byron.ID, nil},
		{"chosen from the suggestions", url.Values{"user": {"Ada Byron"}, "user_id": {byron.ID}}, byron.ID, nil},
		{"chosen, then another typed", url.Values{"user": {"grace"}, "user_id": {byron.ID}}, grace.ID, nil},
		{"several match", url.Values{"user": {"ada"}}, "",
			[]string{"2 users match “ada”", "Ada Lovelace (" + lovelace.Email + ")", "Ada Byron (" + byron.Email + ")", `value="ada"`}},
		{"none matches", url.Values{"user": {"nobody"}}, "", []string{"No user matches “nobody”"}},
		{"nobody typed", url.Values{}, "-", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ops.post("/flows", steps(tc.form))
			if tc.want == "" {
				wantStatus(t, res, http.StatusUnprocessableEntity)
				body := html.UnescapeString(res.body)
				for _, want := range append(tc.answer, `id="field-user-error"`, `aria-invalid="true"`) {
					if !strings.Contains(body, want) {
						t.Errorf("the form sent back lacks %q", want)
					}
				}
				return
			}
			wantRedirect(t, res, "/flows/")
			f, err := h.payouts.GetFlow(t.Context(), strings.TrimPrefix(res.Header.Get("Location"), "/flows/"))
			if err != nil {
				t.Fatal(err)
			}
			if got := deref(f.UserID); got != strings.TrimPrefix(tc.want, "-") {
				t.Errorf("the flow is for %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("payout link form from a user's page", func(t *testing.T) {
		h.deposit(10_00)
		res := ops.get("/payout-links/new?user=" + byron.ID)
		wantBody(t, res, `name="user" type="search" value="Ada Byron"`, `name="user_id" value="`+byron.ID+`"`, `role="combobox"`)
		res = ops.post("/payout-links", url.Values{"amount": {"5.00"}, "user": {"hopper"}, "delivery.method": {"link"}})
		wantRedirect(t, res, "/payout-links/")
		l, err := h.payouts.GetPayoutLink(t.Context(), strings.TrimPrefix(res.Header.Get("Location"), "/payout-links/"))
		if err != nil {
			t.Fatal(err)
		}
		if deref(l.UserID) != grace.ID {
			t.Errorf("the link pays %q, want Grace", deref(l.UserID))
		}
	})

	t.Run("a filter takes the one match", func(t *testing.T) {
		res := ops.get("/transfers?user=" + url.QueryEscape("hopper grace"))
		wantStatus(t, res, http.StatusOK)
		wantBody(t, res, `name="user_id" value="`+grace.ID+`"`, `value="Grace Hopper"`)
	})

	t.Run("suggestions by phone in any format", func(t *testing.T) {
		// The harness gives every three-letter first name the phone +1 415 555 0103.
		res := ops.htmxGet("/users/suggest?user=" + url.QueryEscape("(415) 555-0103"))
		wantStatus(t, res, http.StatusOK)
		wantBody(t, res, `role="option"`, `data-value="`+lovelace.ID+`"`, `data-value="`+byron.ID+`"`, `data-label="Ada Byron"`)
		if strings.Contains(res.body, grace.ID) {
			t.Error("Grace, of another phone, is suggested")
		}
	})
}
