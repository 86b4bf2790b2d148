package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestCorrectPayoutLink sends a link whose email bounced to a corrected address, on both
// backends: on ours in place, audited with both addresses masked; on the public API by
// canceling it and issuing a new link of the same amount and metadata, which the page says
// it will do. Support, which may not issue links, sees no form and is refused the route; a bad
// address re-renders the form with the field's message and changes nothing.
func TestCorrectPayoutLink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		public  bool
		heading string
	}{
		{"our service", false, "Correct and send"},
		{"public API", true, "Cancel and issue a new link to…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			h := newHarnessWith(t, harnessSetup{public: tc.public, service: []servicetest.Option{
				servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
			ops, _ := h.signedIn(dashstore.RoleOperations)
			support, _ := h.signedIn(dashstore.RoleSupport)
			h.deposit(100_00)
			link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 12_00, Memo: "March",
				Metadata: payouts.Metadata(`{"order":"A-17"}`), Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail},
				Payee: &payouts.Payee{FirstName: "Grace", LastName: "Hopper", Email: "grace@bounce.example.com"}})
			if _, err := h.env.Service.DeliverDue(ctx, 10); err != nil {
				t.Fatal(err)
			}
			path := "/payout-links/" + link.ID
			action := `action="` + path + `/contact"`

			page := ops.get(path)
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, tc.heading, action, `value="grace@bounce.example.com"`)
			res := support.get(path)
			wantStatus(t, res, http.StatusOK)
			if strings.Contains(res.body, action) {
				t.Fatal("support sees the correction form")
			}
			wantStatus(t, support.post(path+"/contact", url.Values{"payee.email": {"mallory@example.com"}}), http.StatusForbidden)

			bad := ops.post(path+"/contact", url.Values{"payee.first_name": {"Grace"}, "payee.email": {"grace@"}})
			wantStatus(t, bad, http.StatusUnprocessableEntity)
			wantBody(t, bad, tc.heading, "Enter an email address like name@example.com.", `value="grace@"`)
			if got := h.auditActions("payout_link", link.ID); len(got) != 0 {
				t.Fatalf("audit after the refusals: %+v", got)
			}
			if got := h.auditActions("route", "POST /payout-links/:id/contact"); len(got) != 1 || got[0].Action != "access.denied" {
				t.Fatalf("support's refused correction is not in the audit log: %+v", got)
			}
			if got, _ := h.payouts.GetPayoutLink(ctx, link.ID); got.Status != payouts.LinkDeliveryFailed || got.Payee.Email != "grace@bounce.example.com" {
				t.Fatalf("a refused correction changed the link: %+v", got)
			}

			res = ops.post(path+"/contact", url.Values{"payee.first_name": {"Grace"}, "payee.last_name": {"Hopper"},
				"payee.email": {"grace@example.com"}, "payee.country_code": {"1"}})
			wantRedirect(t, res, "/payout-links/")
			sentTo := strings.TrimPrefix(res.Header.Get("Location"), "/payout-links/")
			got, err := h.payouts.GetPayoutLink(ctx, sentTo)
			// The public API's link has no memo to carry over: only ours keeps it.
			if err != nil || got.Payee.Email != "grace@example.com" || got.Amount != 12_00 || (got.Memo != "March") != tc.public ||
				string(got.Metadata) != `{"order":"A-17"}` || got.Status != payouts.LinkDeliveryPending {
				t.Fatalf("the link to the corrected address: %+v, %v", got, err)
			}
			entries := h.auditActions("payout_link", link.ID)
			if len(entries) == 0 || entries[0].Action != "payout_link.correct" ||
				!strings.Contains(entries[0].Detail, "email g•••@example.com instead of email g•••@bounce.example.com") ||
				strings.Contains(entries[0].Detail, "grace@") {
				t.Fatalf("audit: %+v", entries)
			}
			old, _ := h.payouts.GetPayoutLink(ctx, link.ID)
			if tc.public {
				if sentTo == link.ID || old.Status != payouts.LinkCanceled {
					t.Fatalf("on the public API the old link is %s and the new one %s", old.Status, sentTo)
				}
			} else if sentTo != link.ID {
				t.Fatalf("corrected in place, yet redirected to %s", sentTo)
			}
			if _, err := h.env.Service.DeliverDue(ctx, 10); err != nil {
				t.Fatal(err)
			}
			if m, ok := h.env.Inbox.Last("grace@example.com"); !ok || !strings.Contains(m.Body, "/l/"+sentTo) {
				t.Fatalf("the corrected address got %+v (%v)", m, ok)
			}
		})
	}
}
