package handlers_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestBulkPreviewListsWhoIsPaid: before confirming, the bulk preview lists every row to pay
// with its payee's name (a row given by user id too, never a bare id) and amount, 50 rows to a
// page, and the totals per payee of the whole file.
func TestBulkPreviewListsWhoIsPaid(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.deposit(10_000_00)
	ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
	a, _ := h.signedIn(dashstore.RoleOperations)
	var file strings.Builder
	file.WriteString("user,amount,memo\n")
	for i := range 60 {
		if i%3 == 0 {
			fmt.Fprintf(&file, "%s,2.00,r%d\n", bob.ID, i) // by id: 20 rows, $40.00
		} else {
			fmt.Fprintf(&file, "%s,1.00,r%d\n", ada.Email, i) // by email: 40 rows, $40.00
		}
	}
	id := a.uploadBulk(file.String())
	page := a.get("/bulk/" + id)
	rows := regexp.MustCompile(`(?s)<tr data-testid="bulk-review-row">(.*?)</tr>`).FindAllStringSubmatch(page.body, -1)
	if len(rows) != 50 {
		t.Fatalf("the first page lists %d rows to pay, want 50", len(rows))
	}
	if !strings.Contains(rows[0][1], "Bobby Byte") || !strings.Contains(rows[0][1], "$2.00") || !strings.Contains(rows[1][1], "Ada Lovelace") {
		t.Errorf("rows 1 and 2: %q, %q; want Bobby Byte $2.00 and Ada Lovelace", rows[0][1], rows[1][1])
	}
	wantBody(t, page, `data-testid="bulk-payee-total"`, "Ada Lovelace", "40 rows", "Bobby Byte", "20 rows", "$40.00",
		"/bulk/"+id+"?rows=2")
	second := a.get("/bulk/" + id + "?rows=2")
	if got := len(regexp.MustCompile(`<tr data-testid="bulk-review-row">`).FindAllString(second.body, -1)); got != 10 {
		t.Errorf("the second page lists %d rows, want 10", got)
	}
	if strings.Contains(page.body, ">"+bob.ID+"<") {
		t.Error("a row given by id shows the raw id, not the payee's name")
	}
}
