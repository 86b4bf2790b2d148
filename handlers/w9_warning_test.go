package handlers_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/views/paths"
)

// TestW9WarningInsideTheForm: a payee paid past the 1099 threshold without a tax form on file
// owes a W-9, and each form that pays them says so inside the form, beside its amount and submit
// button, where the operator is about to pay: the payout form of their page and the new payout
// link and flow forms opened for them. A payee who owes nothing gets no warning.
func TestW9WarningInsideTheForm(t *testing.T) {
	h := newHarness(t)
	h.deposit(10_000_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	owes := h.payee("Lou", "lou@pay.example", 2_000_00)
	clear := h.payee("Max", "max@pay.example", 10_00)
	const warning = `data-testid="w9-warning"`
	for _, tc := range []struct {
		name, form string
		path       func(userID string) string
	}{
		{"user page's payout form", "send-payout", paths.User},
		{"new payout link", "payout-link-form", paths.NewPayoutLink},
		{"new flow", "flow-form", func(id string) string { return "/flows/new?user=" + id }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Forms do not nest: a form runs to the first </form> after it.
			form := regexp.MustCompile(`(?s)<form[^>]* id="` + tc.form + `".*?</form>`)
			res := ops.get(tc.path(owes.ID))
			wantStatus(t, res, 200)
			f := form.FindString(res.body)
			if f == "" {
				t.Fatalf("no form %s on the page", tc.form)
			}
			if !strings.Contains(f, warning) || !strings.Contains(f, "Lou Payee owes a W-9") {
				t.Errorf("form %s does not warn that Lou owes a W-9:\n%s", tc.form, f)
			}
			if n := strings.Count(res.body, warning); n != 1 {
				t.Errorf("the page warns %d times, want once, inside the form", n)
			}
			if res := ops.get(tc.path(clear.ID)); strings.Contains(res.body, warning) {
				t.Errorf("the form warns of a W-9 for a payee who owes none")
			}
		})
	}
}
