package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestBulkRepeatedRowsWaitForASecondOperator: a file whose rows pay what an earlier file's rows
// paid is a new job however it is spelled (CRLF, a trailing newline, "$1,000.00" for "1000",
// an email in capitals, the memo edited or dropped), and its preview names the earlier file. Its
// repeated rows are not paid unless an operator other than the uploader confirms; the uploader
// cannot, from another session either, nor can roles that may not move money.
func TestBulkRepeatedRowsWaitForASecondOperator(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.On = false // the amounts here are the policy's business elsewhere
	}})
	ada, bob, cy := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte"), h.createUser("Cy", "Cat")
	h.deposit(10_000_00)
	uploaderOp, uploaderPassword := h.addOperator("uploader@example.com", dashstore.RoleOperations)
	uploader := h.agent()
	uploader.login(uploaderOp.Email, uploaderPassword)
	secondOp, secondPassword := h.addOperator("second@example.com", dashstore.RoleOperations)
	second := h.agent()
	second.login(secondOp.Email, secondPassword)

	// Each upload a second after the last: of two jobs uploaded in the same microsecond, which
	// is the earlier is decided by their random ids.
	upload := func(file string) string {
		t.Helper()
		h.clock.Advance(time.Second)
		return uploader.uploadBulk(file)
	}
	const file = "user,amount,memo\n%ada,1000,June bonus\n%bob,2.50,\n"
	spell := func(f, adaRef string) string {
		return strings.NewReplacer("%ada", adaRef, "%bob", bob.ID).Replace(f)
	}
	first := upload(spell(file, ada.Email))
	wantRedirect(t, uploader.post("/bulk/"+first+"/confirm", nil), "/bulk/"+first)
	wantBody(t, uploader.waitBulk(first), "2 paid")
	paid := func() [3]payouts.Money {
		return [3]payouts.Money{h.walletOf(ada.ID), h.walletOf(bob.ID), h.walletOf(cy.ID)}
	}
	before := paid()

	variants := []struct{ name, file string }{
		{"CRLF line endings", strings.ReplaceAll(spell(file, ada.Email), "\n", "\r\n")},
		{"a trailing newline", spell(file, ada.Email) + "\n"},
		{"amounts, email case and spacing reformatted",
			spell("user , amount , memo\n %ada ,\"$1,000.00\", June   Bonus \n%bob,2.5,\n", strings.ToUpper(ada.Email))},
		{"the user by id", spell(file, ada.ID)},
		// The memo is what a payment says, not what it pays: editing it pays nobody twice.
		{"a trailing point on the memo", spell("user,amount,memo\n%ada,1000,June bonus.\n%bob,2.50,.\n", ada.Email)},
		{"a zero-width space in the memo", spell("user,amount,memo\n%ada,1000,June\u200b bonus\n%bob,2.50,\u200b\n", ada.Email)},
		{"the memo column dropped", spell("user,amount\n%ada,1000\n%bob,2.50\n", ada.Email)},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			id := upload(v.file)
			if id == first {
				t.Fatal("the variant opened the first job: its bytes should differ")
			}
			page := uploader.get("/bulk/" + id)
			wantBody(t, page, "Rows paid before", `href="/bulk/`+first+`"`, `data-testid="bulk-good">0<`,
				"Repeats row 1 of payouts.csv", "Repeats row 2 of payouts.csv", `data-testid="bulk-repeats-uploader"`)
			if got := strings.Count(page.body, `data-testid="bulk-repeat"`); got != 2 {
				t.Errorf("%d repeated rows shown, want 2", got)
			}
			if strings.Contains(page.body, `action="/bulk/`+id+`/repeats"`) {
				t.Error("the uploader is offered to confirm the repeats")
			}
			res := uploader.post("/bulk/"+id+"/confirm", nil)
			wantStatus(t, res, http.StatusUnprocessableEntity)
			wantBody(t, res, "another operator must confirm paying them again")
			wantRedirect(t, uploader.post("/bulk/"+id+"/cancel", nil), "/bulk")
		})
	}

	// A file of the repeated rows and a new one: confirmed without a second operator, only the
	// new row is paid, and the repeats can no longer be confirmed for it.
	mixed := strings.ReplaceAll(spell(file, ada.Email)+cy.Email+",3.00,\n", "\n", "\r\n")
	t.Run("unconfirmed repeats are never paid", func(t *testing.T) {
		id := upload(mixed)
		wantBody(t, uploader.get("/bulk/"+id), `data-testid="bulk-good">1<`, "$3.00")
		wantRedirect(t, uploader.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
		wantBody(t, uploader.waitBulk(id), "1 paid ($3.00), 0 sent, 0 held, 0 failed, 2 skipped")
		if got := paid(); got != [3]payouts.Money{before[0], before[1], 3_00} {
			t.Errorf("wallets %v, want %v with Cy's $3.00", got, before)
		}
		res := second.post("/bulk/"+id+"/repeats", nil)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "was confirmed already")
	})

	t.Run("the uploader cannot confirm, nor weaker roles", func(t *testing.T) {
		id := upload(spell(file, ada.Email) + "\n\n")
		otherTab := h.agent()
		otherTab.login(uploaderOp.Email, uploaderPassword)
		wantStatus(t, uploader.post("/bulk/"+id+"/repeats", nil), http.StatusForbidden)
		wantStatus(t, otherTab.post("/bulk/"+id+"/repeats", nil), http.StatusForbidden)
		for _, role := range []dashstore.Role{dashstore.RoleSupport, dashstore.RoleManager} {
			a, _ := h.signedIn(role)
			wantStatus(t, a.post("/bulk/"+id+"/repeats", nil), http.StatusForbidden)
		}
		if j, err := h.store.BulkJob(t.Context(), h.env.AppID, id); err != nil || j.RepeatsConfirmedBy != "" {
			t.Fatalf("job %+v, %v: confirmed", j, err)
		}

		// Another operator confirms; the uploader's confirmation then pays them.
		page := second.get("/bulk/" + id)
		wantBody(t, page, `action="/bulk/`+id+`/repeats"`, "Confirm paying these 2 rows again")
		wantRedirect(t, second.post("/bulk/"+id+"/repeats", nil), "/bulk/"+id)
		confirmed := uploader.get("/bulk/" + id)
		wantBody(t, confirmed, `data-testid="bulk-repeats-confirmed"`, "second@example.com confirmed", `data-testid="bulk-good">2<`,
			"confirmed paying them again, <time", "row 1, uploaded <time")
		// The page shows times, never the template's source.
		if strings.Contains(confirmed.body, "@components") {
			t.Error("the bulk page shows template source")
		}
		wantRedirect(t, uploader.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
		wantBody(t, uploader.waitBulk(id), "2 paid")
		if got := paid(); got[0] != before[0]+1000_00 || got[1] != before[1]+2_50 {
			t.Errorf("wallets %v after the confirmed repeats, want Ada and Bob paid again", got)
		}
		var actions []string
		for _, e := range h.auditActions("bulk", id) {
			actions = append(actions, e.Action)
		}
		if !strings.Contains(strings.Join(actions, " "), "bulk.confirm_repeats") {
			t.Errorf("audit %v has no confirmation of the repeats", actions)
		}
	})

	t.Run("past the window a file is new", func(t *testing.T) {
		h.clock.Advance(handlers.DefaultBulkRepeatWindow + time.Hour)
		uploader.login(uploaderOp.Email, uploaderPassword) // the session ended meanwhile
		id := upload(spell(file, ada.Email) + "\n\n\n")
		page := uploader.get("/bulk/" + id)
		wantBody(t, page, `data-testid="bulk-good">2<`)
		if strings.Contains(page.body, "Rows paid before") {
			t.Error("a file past the window is flagged")
		}
	})
	h.env.CheckLedger(t)
}
