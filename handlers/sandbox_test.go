package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestSandboxInbox: the dashboard shows its own app's sandbox inbox, to operators who may
// verify users, never another app's messages.
func TestSandboxInbox(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.createUser("Ina", "Box")
	if err := h.payouts.SendVerificationToken(t.Context(), u.ID, payouts.SendVerificationTokenRequest{}); err != nil {
		t.Fatal(err)
	}
	other := h.env.CreateApp(t, "Other app")
	h.env.DoAs(t, other, "POST", "/v2/users", map[string]any{"first_name": "Oth", "last_name": "Er",
		"email": "other@example.com", "country_code": "1", "phone_number": "4155550199"})
	if err := h.env.Service.SendVerificationToken(t.Context(), other.AppID, otherUserID(t, h, other.AppID), payouts.SendVerificationTokenRequest{}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		role   dashstore.Role
		status int
	}{
		{dashstore.RoleOperations, http.StatusOK},
		{dashstore.RoleSupport, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(string(tt.role), func(t *testing.T) {
			a, _ := h.signedIn(tt.role)
			page := a.get("/sandbox/inbox")
			wantStatus(t, page, tt.status)
			if tt.status != http.StatusOK {
				return
			}
			wantBody(t, page, "Sandbox inbox", u.PhoneNumber.String(), "Your verification code is")
			if strings.Contains(page.body, "4155550199") {
				t.Error("the inbox shows another app's message")
			}
		})
	}
}

func otherUserID(t *testing.T, h *harness, appID string) string {
	t.Helper()
	list, err := h.env.Service.ListUsers(t.Context(), appID, payouts.Page{Limit: 1}, payouts.UserFilter{})
	if err != nil || len(list.Data) != 1 {
		t.Fatalf("the other app's users: %v %v", list, err)
	}
	return list.Data[0].ID
}
