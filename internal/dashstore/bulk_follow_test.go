package dashstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestFollowedBulkJobs lists the app's finished jobs with a row still sent or held, and no job
// still running, of another app, or whose rows have all ended.
func TestFollowedBulkJobs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		job := func(app, hash string, status dashstore.BulkStatus, outcomes ...string) string {
			t.Helper()
			j := dashstore.BulkJob{AppID: app, FileHash: hash, FileName: hash + ".csv", OperatorID: "op1",
				Status: dashstore.BulkPreviewed, Created: t0}
			var rows []dashstore.BulkRow
			for i := range outcomes {
				rows = append(rows, dashstore.BulkRow{Row: i + 1, UserRef: "u", UserID: "u", Amount: 100, Method: "paypal"})
			}
			if _, err := s.CreateBulkJob(ctx, &j, rows); err != nil {
				t.Fatal(err)
			}
			for i, o := range outcomes {
				rows[i].Outcome, rows[i].TransferID = o, "tr_"+hash
			}
			if err := s.SetBulkOutcomes(ctx, j.ID, rows); err != nil {
				t.Fatal(err)
			}
			if err := s.SetBulkStatus(ctx, j.ID, status, t0); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}
		sent := job("app1", "sent", dashstore.BulkDone, dashstore.BulkPaid, dashstore.BulkSent)
		held := job("app1", "held", dashstore.BulkDone, dashstore.BulkHeld)
		job("app1", "ended", dashstore.BulkDone, dashstore.BulkPaid, dashstore.BulkFailed)
		job("app1", "running", dashstore.BulkRunning, dashstore.BulkSent)
		job("app2", "other", dashstore.BulkDone, dashstore.BulkSent)

		got, err := s.FollowedBulkJobs(ctx, "app1")
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		want := []string{sent, held}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("followed %v, want %v", got, want)
		}
	})
}
