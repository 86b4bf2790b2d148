package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestPayoutLinkPreviewAndTimeline: the link page shows the claim page as a preview whose
// actions do nothing (no live claim page an operator could act in), and the claim in the
// link's timeline: who, when, through which verified contact.
func TestPayoutLinkPreviewAndTimeline(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.deposit(100_00)
	u := h.createUser("Tim", "Line")
	l := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 60_00, UserID: u.ID, Memo: "June"})
	support, _ := h.signedIn(dashstore.RoleSupport)

	tests := []struct {
		name    string
		claim   bool
		want    []string
		wantNot []string
	}{
		{"open", false, []string{`id="claim-preview"`, "Claim $60.00", "June", "Created"},
			[]string{"<iframe", `href="` + l.Link, `action="` + l.Link, "Claimed"}},
		{"claimed", true, []string{"Claimed", `href="/users/` + u.ID + `"`, "sms " + u.PhoneNumber.String()},
			[]string{"<iframe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.claim {
				if _, err := h.env.Service.ClaimPayoutLink(t.Context(), l.ID, u.ID); err != nil {
					t.Fatal(err)
				}
			}
			page := support.get("/payout-links/" + l.ID)
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, tt.want...)
			preview := page.body[strings.Index(page.body, `id="claim-preview"`):]
			for _, s := range tt.wantNot {
				if strings.Contains(preview, s) {
					t.Errorf("the preview has %q", s)
				}
			}
			if strings.Contains(preview, "<form") || strings.Contains(preview, `<a href="/f/`) {
				t.Error("the preview has a working action")
			}
		})
	}
}

// TestLinkFlowPageHasNoLiveFlow: the flow of a payout link is its claim, so its dashboard page
// shows no live hosted flow either: the link's page has the preview.
func TestLinkFlowPageHasNoLiveFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.deposit(10_00)
	l := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 5_00})
	manager, _ := h.signedIn(dashstore.RoleManager)
	page := manager.get("/flows/" + *l.FlowID)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `id="flow-progress"`, `href="/payout-links/`+l.ID+`"`)
	if strings.Contains(page.body, "<iframe") {
		t.Error("the flow of a payout link is live in the dashboard")
	}
}
