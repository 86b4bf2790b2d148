package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// decimalCommas are amounts written with a decimal comma: read with the comma dropped they pay a
// hundred (or a thousand) times what was meant.
var decimalCommas = []string{"9,99", "10,00", "1.000,00"}

// TestPayoutFormRefusesADecimalComma: "9,99" typed in the payout form is refused on the amount
// field and the form comes back with it, rather than paying $999.00; "1,000.00" still pays
// $1,000.00.
func TestPayoutFormRefusesADecimalComma(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.On = false // what is paid is the point here, not who approves it
	}})
	ops, _ := h.signedIn(dashstore.RoleOperations)
	u := h.fundedUser("Pia", "Payee", 1_100_00)
	userURL := "/users/" + u.ID
	for _, amount := range decimalCommas {
		t.Run(amount, func(t *testing.T) {
			res := ops.post(userURL+"/payouts", url.Values{"platform": {"paypal"}, "amount": {amount}})
			wantStatus(t, res, http.StatusUnprocessableEntity)
			wantBody(t, res, `id="field-payout-amount-error"`, "se a comma only between groups of three digits",
				`value="`+amount+`"`)
			if got := h.transferIDs(payouts.TransferFilter{UserID: u.ID, Type: payouts.TransferPayout}); len(got) != 0 {
				t.Fatalf("%q paid %d payouts", amount, len(got))
			}
		})
	}
	t.Run("1,000.00", func(t *testing.T) {
		wantRedirect(t, ops.post(userURL+"/payouts", url.Values{"platform": {"paypal"}, "amount": {"1,000.00"}}), userURL)
		got := h.transferIDs(payouts.TransferFilter{UserID: u.ID, Type: payouts.TransferPayout})
		if len(got) != 1 {
			t.Fatalf("%d payouts, want 1", len(got))
		}
		if tr, err := h.payouts.GetTransfer(t.Context(), got[0]); err != nil || tr.Amount != 1_000_00 {
			t.Fatalf("payout %+v, %v; want $1,000.00", tr, err)
		}
	})
}

// TestBulkCellRefusesADecimalComma: a bulk file's amount cell "10,00" is a problem on its row
// that names the amount column, rather than a payout of $1,000.00; the file's other rows, with
// "1,000.00" among them, are good.
func TestBulkCellRefusesADecimalComma(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.On = false
	}})
	ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
	h.deposit(5_000_00)
	a, _ := h.signedIn(dashstore.RoleOperations)
	for _, amount := range decimalCommas {
		t.Run(amount, func(t *testing.T) {
			id := a.uploadBulk("user,amount\n" + bob.ID + ",\"1,000.00\"\n" + ada.ID + ",\"" + amount + "\"\n")
			page := a.get("/bulk/" + id)
			wantBody(t, page, `data-testid="bulk-good">1<`, `data-testid="bulk-bad">1<`, "$1,000.00")
			_, problem, _ := strings.Cut(page.body, `data-testid="bulk-problem">`)
			problem, _, _ = strings.Cut(problem, "</tr>")
			want := "Column amount: “" + amount + "” cannot be read: use a comma only between groups of three digits"
			if !strings.Contains(problem, `tabular-nums">2</td>`) || !strings.Contains(problem, want) {
				t.Errorf("the problem row %q does not say %q on row 2", problem, want)
			}
			wantRedirect(t, a.post("/bulk/"+id+"/cancel", nil), "/bulk")
		})
	}
}
