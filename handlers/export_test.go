package handlers_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// csvColumns indexes a CSV's header by name.
func csvColumns(t *testing.T, header []string) map[string]int {
	t.Helper()
	cols := make(map[string]int, len(header))
	for i, name := range header {
		cols[name] = i
	}
	return cols
}

// pageAmounts reads the amount shown on each row of a transfers page, by transfer id.
func pageAmounts(t *testing.T, body string) map[string]payouts.Money {
	t.Helper()
	out := map[string]payouts.Money{}
	for _, m := range regexp.MustCompile(`(?s)<tr data-id="([^"]+)">(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
		money := regexp.MustCompile(`\$[0-9,]+\.[0-9]{2}`).FindAllString(m[2], -1)
		if len(money) == 0 {
			t.Fatalf("row %s shows no amount:\n%s", m[1], m[2])
		}
		amount, err := payouts.ParseDollars(money[len(money)-1])
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] = amount
	}
	return out
}

func TestTransfersExportForFinance(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	ctx := context.Background()
	zoe, err := h.payouts.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Zoë", LastName: "García-López",
		Email: "zoe@example.com", CountryCode: "1", PhoneNumber: "4155550107"})
	if err != nil {
		t.Fatal(err)
	}
	bob := h.createUser("Bob", "Other")
	h.deposit(1_000_00)
	for _, move := range []struct {
		user  string
		cents int64
	}{{zoe.ID, -250_00}, {zoe.ID, -12_34}, {zoe.ID, 2_00}, {bob.ID, -5_00}} {
		if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: move.user, Amount: move.cents}); err != nil {
			t.Fatal(err)
		}
	}
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 40_00, Payee: &payouts.Payee{FirstName: "Ann", Email: "ann@example.com"}})
	if _, err := h.payouts.CancelPayoutLink(ctx, link.ID); err != nil {
		t.Fatal(err)
	}

	t.Run("a user's balance transfers", func(t *testing.T) {
		query := "?user=" + zoe.ID + "&type=balance"
		page := manager.get("/transfers" + query)
		wantStatus(t, page, http.StatusOK)
		shown := pageAmounts(t, page.body)
		res := manager.get("/transfers/export" + query)
		wantStatus(t, res, http.StatusOK)
		if !strings.HasPrefix(res.body, "\ufeff") {
			t.Fatalf("no byte-order mark: %.40q", res.body)
		}
		rows := readCSV(t, res.body)
		col := csvColumns(t, rows[0])
		if len(rows)-1 != 3 || len(shown) != 3 {
			t.Fatalf("%d rows exported, %d shown, want 3", len(rows)-1, len(shown))
		}
		var exported, onPage payouts.Money
		for _, row := range rows[1:] {
			id := row[col["id"]]
			amount, err := payouts.ParseDollars(row[col["amount"]])
			if err != nil || amount <= 0 {
				t.Errorf("%s: amount %q is not an unsigned amount: %v", id, row[col["amount"]], err)
			}
			if amount != shown[id] {
				t.Errorf("%s: exported %s, the page shows %s", id, amount, shown[id])
			}
			exported, onPage = exported+amount, onPage+shown[id]
			if row[col["payee_name"]] != "Zoë García-López" || row[col["payee_email"]] != "zoe@example.com" {
				t.Errorf("%s: payee %q <%s>", id, row[col["payee_name"]], row[col["payee_email"]])
			}
			if want := map[bool]string{true: "App to user", false: "User to app"}[amount != 2_00]; row[col["type"]] != want {
				t.Errorf("%s: type %q, want %q", id, row[col["type"]], want)
			}
			if row[col["metadata"]] != "" {
				t.Errorf("%s: metadata %q, want an empty cell", id, row[col["metadata"]])
			}
		}
		if exported != 264_34 || exported != onPage {
			t.Errorf("the export sums to %s, the page to %s; want $264.34", exported, onPage)
		}
	})

	t.Run("a canceled link's reservation", func(t *testing.T) {
		rows := readCSV(t, manager.get("/transfers/export?type=balance&status=failed").body)
		col := csvColumns(t, rows[0])
		if len(rows) != 2 || rows[1][col["payout_link_id"]] != link.ID {
			t.Fatalf("want the link's reservation alone: %v", rows)
		}
		if got := rows[1][col["status"]]; got != "Canceled" {
			t.Errorf("status %q, want Canceled", got)
		}
	})
}

// TestExportsSumToTheSummary holds both exports to their summaries: the columns they share have
// the same names in the same places, and a spreadsheet's sum of signed_amount over a history
// with every kind of movement (a failed funded payout, a pending payout, a canceled link) is
// the summary's money in less its money out, to the cent.
func TestExportsSumToTheSummary(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	ctx := context.Background()
	h.deposit(1_000_00)
	zoe := h.fundedUser("Zoë", "Pending", 250_00) // $260 more deposited, $250 to her wallet
	if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: zoe.ID, Amount: 2_00}); err != nil {
		t.Fatal(err)
	}
	// From her own wallet, the app paying the fee: pending, so nothing of it is posted yet.
	if _, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: zoe.ID, Amount: 10_00,
		Platform: payouts.PlatformPayPal, PayoutFeeParty: payouts.FeePartyPlatform}); err != nil {
		t.Fatal(err)
	}
	// A funded payout the rail refuses: its funding comes back and its fee is voided.
	bea := h.createUser("Bea", "Refused")
	if _, err := h.payouts.AddPayoutMethod(ctx, bea.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: "fail@example.com", IsDefault: true}); err != nil {
		t.Fatal(err)
	}
	if p, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: bea.ID, Amount: 20_00,
		Platform: payouts.PlatformPayPal, Fund: true, PayoutFeeParty: payouts.FeePartyPlatform}); err != nil || p.Status != payouts.TransferFailed {
		t.Fatalf("the refused payout: %+v, %v", p, err)
	}
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 40_00, Payee: &payouts.Payee{FirstName: "Ann", Email: "ann@example.com"}})
	if _, err := h.payouts.CancelPayoutLink(ctx, link.ID); err != nil {
		t.Fatal(err)
	}

	transfers, err := h.payouts.SummarizeTransfers(ctx, payouts.TransferFilter{})
	if err != nil {
		t.Fatal(err)
	}
	transactions, err := h.payouts.SummarizeTransactions(ctx, payouts.TransactionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string][]string{}
	for _, tc := range []struct {
		export  string
		summary *payouts.Summary
	}{{"/transfers/export", transfers}, {"/transactions/export", transactions}} {
		t.Run(tc.export, func(t *testing.T) {
			res := manager.get(tc.export)
			wantStatus(t, res, http.StatusOK)
			rows := readCSV(t, res.body)
			headers[tc.export] = rows[0]
			col := csvColumns(t, rows[0])
			var net, in, out payouts.Money
			for _, row := range rows[1:] {
				for _, c := range []struct {
					name string
					sum  *payouts.Money
				}{{"signed_amount", &net}, {"money_in", &in}, {"money_out", &out}} {
					v, err := payouts.ParseDollars(row[col[c.name]])
					if err != nil {
						t.Fatalf("%s %q: %v", c.name, row[col[c.name]], err)
					}
					*c.sum += v
				}
			}
			// Money in and out each rebuild the page's: a failed funded payout is in and out.
			if in != tc.summary.MoneyIn || out != tc.summary.MoneyOut {
				t.Errorf("money_in sums to %s, money_out to %s; the summary's in %s, out %s", in, out, tc.summary.MoneyIn, tc.summary.MoneyOut)
			}
			if want := tc.summary.MoneyIn - tc.summary.MoneyOut; net != want || !tc.summary.Exact {
				t.Errorf("signed_amount sums to %s, the summary's net is %s (in %s, out %s)", net, want,
					tc.summary.MoneyIn, tc.summary.MoneyOut)
			}
		})
	}
	// Each page's summary breaks in and out down by type, in the list's names for the types.
	for path, rows := range map[string][]string{
		"/transfers": {`<tr data-type="refill"><th scope="row" class="py-1 pr-4 text-left font-normal">Deposit</th>`,
			`<tr data-type="balance"><th scope="row" class="py-1 pr-4 text-left font-normal">Between app and user</th>`},
		"/transactions": {`<tr data-type="fee"><th scope="row" class="py-1 pr-4 text-left font-normal">Fee</th>`},
	} {
		res := manager.get(path)
		wantStatus(t, res, http.StatusOK)
		wantBody(t, res, append(rows, `data-testid="by-type"`, "Transactions counts each line (a fee under Fee)")...)
	}
	shared := []string{"id", "created", "type", "status", "direction", "amount", "signed_amount", "money_in", "money_out", "user_id",
		"payee_name", "payee_email"}
	for export, header := range headers {
		if len(header) < len(shared) || !slices.Equal(header[:len(shared)], shared) {
			t.Errorf("%s begins %v, want %v", export, header, shared)
		}
	}
}
