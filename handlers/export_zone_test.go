package handlers_test

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestExportsNameTheirZone: every CSV export of an operator in New York writes its times in New
// York with the offset, names the zone in its last column on every row, and stamps its file name
// with New York's clock; at 19:01 there, the transfers of New York's day are the file's rows.
func TestExportsNameTheirZone(t *testing.T) {
	h := newHarnessWith(t, harnessSetup{sharedClock: true})
	h.clock.Set(time.Date(2026, 3, 3, 0, 1, 0, 0, time.UTC)) // 19:01 on Mar 2 in New York
	u := h.fundedUser("Zed", "Zone", 10_00)
	a, op := h.signedIn(dashstore.RoleAdmin)
	if err := h.store.SetOperatorTimeZone(t.Context(), op.ID, "America/New_York", h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	job := a.uploadBulk("user,amount,memo,method\n" + u.Email + ",1.00,zone,paypal\n")
	day := "from=2026-03-02&to=2026-03-02"
	rfc3339 := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`)
	for _, tc := range []struct {
		name, path, file string
		minRows          int
	}{
		{"transfers", "/transfers/export?" + day, "transfers-20260302-190100.csv", 2},
		{"payouts", "/transfers/export?type=payout&" + day, "transfers-20260302-190100.csv", 0},
		{"transactions", "/transactions/export?" + day, "transactions-20260302-190100.csv", 2},
		{"statement", "/statement/export?" + day, "statement-20260302-190100.csv", 2},
		{"audit", "/audit/export", "audit-20260302-190100.csv", 1},
		{"bulk results", "/bulk/" + job + "/result.csv", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := a.get(tc.path)
			wantStatus(t, res, http.StatusOK)
			if tc.file != "" && !strings.Contains(res.Header.Get("Content-Disposition"), tc.file) {
				t.Errorf("file %q, want %s", res.Header.Get("Content-Disposition"), tc.file)
			}
			rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.body, "\ufeff"))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) < 1+tc.minRows {
				t.Fatalf("%d rows, want at least %d: %v", len(rows)-1, tc.minRows, rows)
			}
			if last := rows[0][len(rows[0])-1]; last != "time_zone" {
				t.Errorf("header %v, want time_zone last", rows[0])
			}
			for _, col := range rows[0] {
				if strings.HasSuffix(col, "_utc") {
					t.Errorf("column %s says UTC", col)
				}
			}
			for _, row := range rows[1:] {
				if row[len(row)-1] != "America/New_York" {
					t.Errorf("row %v does not name the zone last", row)
				}
				for _, cell := range row {
					if rfc3339.MatchString(cell) && !strings.HasSuffix(cell, "-05:00") {
						t.Errorf("time %s is not New York's", cell)
					}
				}
			}
		})
	}
}
