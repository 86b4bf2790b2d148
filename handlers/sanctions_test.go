package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/sanctionstest"
	"github.com/disburse/disburse/payouts"
)

// A payout to a payee matching the loaded SDN list shows the match on the review page; the
// release needs a reason, and the service and the audit log keep who released it and why.
func TestTransferReviewOfASanctionsMatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, op := h.signedIn(dashstore.RoleOperations)
	l, dir := sanctionstest.Load(t, map[string]string{"sdn.csv": sanctionstest.Individual(7001, "AL-RASHID, Ahmad Yusuf", "SDGT] [IRGC", "DOB 12 Mar 1970.")})
	if _, err := h.env.Service.LoadSanctions(t.Context(), l, dir); err != nil {
		t.Fatal(err)
	}
	u, err := h.payouts.CreateUser(t.Context(), payouts.CreateUserRequest{FirstName: "Ahmad Yusuf", LastName: "Al-Rashid",
		Email: "ay@example.com", CountryCode: "1", PhoneNumber: "4155550177"})
	if err != nil {
		t.Fatal(err)
	}
	h.payPalDefault(u)
	h.deposit(50_00)
	tr, err := h.payouts.CreatePayout(t.Context(), payouts.CreatePayoutRequest{UserID: u.ID, Amount: 20_00, Platform: payouts.PlatformDefault, Fund: true})
	if err != nil || tr.Status != payouts.TransferFlagged {
		t.Fatalf("payout to the listed payee: %+v %v", tr, err)
	}

	page := ops.get("/transfers/" + tr.ID)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `id="sanctions-hits"`, "AL-RASHID, Ahmad Yusuf", "SDN-7001", "SDGT, IRGC", "100%", `name="release_reason"`)

	res := ops.post("/transfers/"+tr.ID+"/review", url.Values{"action": {"release"}, "release_reason": {" "}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, `id="field-release_reason-error"`)
	if got, _ := h.payouts.GetTransfer(t.Context(), tr.ID); got.Status != payouts.TransferFlagged {
		t.Fatalf("released without a reason: %s", got.Status)
	}

	why := "passport shows born 1991 in Ohio"
	rel := ops.post("/transfers/"+tr.ID+"/review", url.Values{"action": {"release"}, "release_reason": {why}})
	wantRedirect(t, rel, "/transfers/"+tr.ID)
	if got, _ := h.payouts.GetTransfer(t.Context(), tr.ID); got.Status == payouts.TransferFlagged || got.Status == payouts.TransferFailed {
		t.Fatalf("after the release: %s", got.Status)
	}
	s, err := h.payouts.GetScreening(t.Context(), u.ID)
	if err != nil || len(s.Hits) != 1 || !s.Hits[0].Released || s.Hits[0].ReleasedBy != op.Email || s.Hits[0].ReleaseReason != why {
		t.Fatalf("the service's record of the release: %+v %v", s, err)
	}
	entries := h.auditActions("transfer", tr.ID)
	if len(entries) != 1 || entries[0].Action != "transfer.release" || entries[0].OperatorID != op.ID ||
		!strings.Contains(entries[0].Detail, "despite sanctions matches SDN SDN-7001 (AL-RASHID, Ahmad Yusuf, SDGT IRGC, score 1.00)") ||
		!strings.HasSuffix(entries[0].Detail, ": "+why) {
		t.Fatalf("audit: %+v", entries)
	}
}
