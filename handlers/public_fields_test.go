package handlers_test

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestTransferPagesOnBothBackends: a transfer's page and the transfers list say only what the
// service reported. The public transfer model has no status history and no payout link: behind
// the strict stand-in the page says the history is not reported (never that none was recorded),
// and a payout link's reservation, a balance transfer without a user, is still named as one.
func TestTransferPagesOnBothBackends(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			ctx := context.Background()
			u := h.fundedUser("Hana", "History", 20_00)
			payout, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: u.ID, Amount: 5_00, Platform: payouts.PlatformDefault})
			if err != nil {
				t.Fatal(err)
			}
			link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 7_00, Payee: &payouts.Payee{FirstName: "Lena", Email: "lena.link@example.com"}})
			if link.TransferID == nil {
				t.Fatal("the link has no reservation transfer")
			}
			a, _ := h.signedIn(dashstore.RoleOperations)

			t.Run("a payout's history", func(t *testing.T) {
				res := a.get("/transfers/" + payout.ID)
				wantStatus(t, res, http.StatusOK)
				if strings.Contains(res.body, "No history recorded") {
					t.Error("the page says the payout has no history")
				}
				unreported := "This API reports a transfer’s current status only, not the statuses it took before."
				if got := strings.Contains(res.body, unreported); got != b.public {
					t.Errorf("the page says the history is not reported: %v, want %v", got, b.public)
				}
				if !b.public && !strings.Contains(res.body, `<ol class="mt-4 space-y-4 border-l`) {
					t.Error("the page shows no timeline on our service")
				}
			})
			t.Run("a payout link's reservation", func(t *testing.T) {
				res := a.get("/transfers/" + *link.TransferID)
				wantStatus(t, res, http.StatusOK)
				wantBody(t, res, "Payout link", "None: the app’s money held for a payout link")
				if strings.Contains(res.body, "App to user") {
					t.Error("the reservation is named as a move from the app to a user")
				}
				if got := strings.Contains(res.body, `href="/payout-links/`+link.ID+`"`); got == b.public {
					t.Errorf("the page links the payout link: %v, want %v", got, !b.public)
				}
				if got := strings.Contains(res.body, "This API does not say which payout link."); got != b.public {
					t.Errorf("the page says the link is not reported: %v, want %v", got, b.public)
				}
				list := a.get("/transfers")
				wantStatus(t, list, http.StatusOK)
				row := rowOf(t, list.body, *link.TransferID)
				if !strings.Contains(row, ">Payout link<") || strings.Contains(row, "App to user") {
					t.Errorf("the list's row of the reservation: %s", row)
				}
			})
		})
	}
}

// rowOf is the table row of body whose data-id is id.
func rowOf(t *testing.T, body, id string) string {
	t.Helper()
	_, row, found := strings.Cut(body, `data-id="`+id+`"`)
	if !found {
		t.Fatalf("no row of %s", id)
	}
	row, _, _ = strings.Cut(row, "</tr>")
	return row
}

// TestAppDepositsClaimOnlyWhatWasRead: on the public API, which cannot filter transfers by type,
// the App wallet page looks for deposits among the newest transfers only; when a deposit lies
// beyond them the page says how far it looked, never "No deposits yet". With every transfer read
// and none a deposit, it says there are none.
func TestAppDepositsClaimOnlyWhatWasRead(t *testing.T) {
	for _, tc := range []struct {
		name        string
		deposit     bool
		newer       int // transfers made after the deposit
		says, never string
	}{
		{"a deposit older than the rows read", true, 600, "No deposits among the newest 500 transfers", "No deposits yet"},
		{"no deposit, every row read", false, 3, "No deposits yet", "No deposits among"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: true})
			u := h.createUser("Dina", "Deposit")
			if tc.deposit {
				h.deposit(10_00)
			}
			seedTransfers(t, h, tc.newer, "'"+u.ID+"'")
			a, _ := h.signedIn(dashstore.RoleAdmin)
			res := a.get("/app")
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, tc.says)
			if strings.Contains(res.body, tc.never) {
				t.Errorf("the page says %q", tc.never)
			}
		})
	}
}

// seedTransfers writes n completed payouts straight into the service's database, newer than
// anything made before, for lists longer than a test could make through the API; payee is the
// SQL of the n-th payout's user id. They book no ledger lines, so they go again before the
// service's ledger check when t ends (cleanups run last first).
func seedTransfers(t testing.TB, h *harness, n int, payee string) {
	t.Helper()
	db := h.env.Store.DB()
	ctx := context.Background()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO transfers (id, app_id, user_id, status, type, amount, created, updated)
			WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?)
			SELECT printf('20000000-0000-4000-8000-%012d', n), ?, `+payee+`, 'completed', 'payout', -100, ? + n, ? + n FROM s`),
			n, h.env.AppID, h.clock.Now().UnixMicro(), h.clock.Now().UnixMicro())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM transfers WHERE id LIKE '20000000-%'`)
			return err
		}); err != nil {
			t.Error(err)
		}
	})
}

// TestBulkPreviewNamesUncheckedRows: our service's preflight checks each row of a bulk file
// before it is paid; the public API has none, so there the preview counts the rows to pay that no
// service checked and names them, instead of counting them as payable without a word.
func TestBulkPreviewNamesUncheckedRows(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
			h.deposit(100_00)
			a, _ := h.signedIn(dashstore.RoleOperations)
			id := a.uploadBulk("user,amount,memo,method\n" + ada.Email + ",3.00,,wallet\n" + bob.Email + ",4.00,,wallet\n" +
				"nobody@example.com,1.00,,wallet\n" + ada.Email + ",5.00,second,wallet\n")
			page := a.get("/bulk/" + id)
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, `data-testid="bulk-good">3<`)
			unchecked := []string{`data-testid="bulk-unchecked">3<`, "Rows 1–2 and 4 were not checked by the service before paying"}
			for _, s := range unchecked {
				if got := strings.Contains(page.body, s); got != b.public {
					t.Errorf("the preview shows %q: %v, want %v", s, got, b.public)
				}
			}
		})
	}
}
