package dashstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

func TestBulkJobs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		rows := []dashstore.BulkRow{
			{Row: 1, UserRef: "ada@example.com", UserID: "u1", Amount: 25_00, Memo: "Zoë", Method: "wallet"},
			{Row: 2, UserRef: "nobody@example.com", Amount: 1_00, Method: "paypal", Problem: "no user nobody@example.com"},
		}
		job := dashstore.BulkJob{AppID: "app1", FileHash: "abc", FileName: "march.csv", OperatorID: "op1",
			Status: dashstore.BulkPreviewed, Created: t0}
		if created, err := s.CreateBulkJob(ctx, &job, rows); err != nil || !created || job.ID == "" {
			t.Fatalf("CreateBulkJob = %v, %v (id %q)", created, err, job.ID)
		}

		t.Run("the same file of the same app is the same job", func(t *testing.T) {
			again := dashstore.BulkJob{AppID: "app1", FileHash: "abc", FileName: "copy.csv", Status: dashstore.BulkPreviewed, Created: t0}
			if created, err := s.CreateBulkJob(ctx, &again, rows[:1]); err != nil || created || again.ID != job.ID || again.FileName != "march.csv" {
				t.Errorf("second CreateBulkJob = %v, %v, %+v", created, err, again)
			}
			other := dashstore.BulkJob{AppID: "app2", FileHash: "abc", FileName: "march.csv", Status: dashstore.BulkPreviewed, Created: t0}
			if created, err := s.CreateBulkJob(ctx, &other, rows); err != nil || !created || other.ID == job.ID {
				t.Errorf("another app's CreateBulkJob = %v, %v, %+v", created, err, other)
			}
		})
		t.Run("another app cannot read it", func(t *testing.T) {
			if _, err := s.BulkJob(ctx, "app2", job.ID); payouts.ErrorCode(err) != payouts.ENotFound {
				t.Errorf("BulkJob of another app: %v, want not found", err)
			}
			if jobs, err := s.BulkJobs(ctx, "app1", 10); err != nil || len(jobs) != 1 || jobs[0].ID != job.ID || !jobs[0].Created.Equal(t0) {
				t.Errorf("BulkJobs = %+v, %v; want only app1's job", jobs, err)
			}
		})
		t.Run("rows and outcomes", func(t *testing.T) {
			done := []dashstore.BulkRow{{Row: 1, Outcome: dashstore.BulkPaid, TransferID: "t1"},
				{Row: 2, Outcome: dashstore.BulkSkipped, Error: "no user nobody@example.com"}}
			if err := s.SetBulkOutcomes(ctx, job.ID, done); err != nil {
				t.Fatal(err)
			}
			got, err := s.BulkRows(ctx, job.ID)
			if err != nil || len(got) != 2 {
				t.Fatalf("BulkRows = %+v, %v", got, err)
			}
			want := rows[0]
			want.Outcome, want.TransferID = dashstore.BulkPaid, "t1"
			if got[0] != want || got[1].Outcome != dashstore.BulkSkipped || got[1].Problem == "" {
				t.Errorf("rows %+v", got)
			}
		})
		t.Run("an unsettled row keeps its batch", func(t *testing.T) {
			waiting := []dashstore.BulkRow{{Row: 1, Outcome: dashstore.BulkUnsettled, Error: "still running", BatchID: "b1"}}
			if err := s.SetBulkOutcomes(ctx, job.ID, waiting); err != nil {
				t.Fatal(err)
			}
			got, err := s.BulkRows(ctx, job.ID)
			if err != nil || got[0].Outcome != dashstore.BulkUnsettled || got[0].BatchID != "b1" || got[0].TransferID != "" {
				t.Fatalf("BulkRows = %+v, %v", got, err)
			}
			paid := []dashstore.BulkRow{{Row: 1, Outcome: dashstore.BulkPaid, TransferID: "t1"}}
			if err := s.SetBulkOutcomes(ctx, job.ID, paid); err != nil {
				t.Fatal(err)
			}
			if got, err := s.BulkRows(ctx, job.ID); err != nil || got[0].BatchID != "" || got[0].TransferID != "t1" {
				t.Errorf("once paid, BulkRows = %+v, %v", got, err)
			}
		})
		t.Run("a confirmed job cannot be canceled", func(t *testing.T) {
			if err := s.SetBulkStatus(ctx, job.ID, dashstore.BulkRunning, t0); err != nil {
				t.Fatal(err)
			}
			if err := s.DeleteBulkJob(ctx, "app1", job.ID); err == nil {
				t.Error("deleted a running job")
			}
			if got, err := s.BulkJob(ctx, "app1", job.ID); err != nil || got.Status != dashstore.BulkRunning {
				t.Errorf("BulkJob = %+v, %v", got, err)
			}
		})
		t.Run("a previewed job can", func(t *testing.T) {
			fresh := dashstore.BulkJob{AppID: "app1", FileHash: "def", FileName: "x.csv", Status: dashstore.BulkPreviewed, Created: t0}
			if _, err := s.CreateBulkJob(ctx, &fresh, rows); err != nil {
				t.Fatal(err)
			}
			if err := s.DeleteBulkJob(ctx, "app1", fresh.ID); err != nil {
				t.Fatal(err)
			}
			if got, err := s.BulkRows(ctx, fresh.ID); err != nil || len(got) != 0 {
				t.Errorf("rows left: %+v, %v", got, err)
			}
		})
	})
}

// TestBulkJobManyRows: a file of more rows than one INSERT takes is stored whole, in order.
func TestBulkJobManyRows(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		rows := bulkRows(1234)
		job := dashstore.BulkJob{AppID: "app1", FileHash: "big", FileName: "big.csv", Status: dashstore.BulkPreviewed, Created: t0}
		if _, err := s.CreateBulkJob(ctx, &job, rows); err != nil {
			t.Fatal(err)
		}
		got, err := s.BulkRows(ctx, job.ID)
		if err != nil || !slices.Equal(got, rows) {
			t.Errorf("BulkRows = %d rows (%v), want the %d stored", len(got), err, len(rows))
		}
	})
}

// bulkRows makes n good rows.
func bulkRows(n int) []dashstore.BulkRow {
	rows := make([]dashstore.BulkRow, n)
	for i := range rows {
		rows[i] = dashstore.BulkRow{Row: i + 1, UserRef: fmt.Sprintf("user%d@example.com", i), UserID: fmt.Sprintf("u%d", i),
			Amount: int64(100 + i), Memo: "March payouts", Method: "wallet"}
	}
	return rows
}

// BenchmarkCreateBulkJob stores a 5,000-row bulk file on each engine, a new file each time.
func BenchmarkCreateBulkJob(b *testing.B) {
	ctx := context.Background()
	rows := bulkRows(5000)
	for name, dsn := range engines {
		b.Run(name, func(b *testing.B) {
			s, err := dashstore.Open(ctx, dsn(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			n := 0
			for b.Loop() {
				n++
				job := dashstore.BulkJob{AppID: "app1", FileHash: fmt.Sprint(n), FileName: "march.csv", OperatorID: "op1",
					Status: dashstore.BulkPreviewed, Created: t0}
				if created, err := s.CreateBulkJob(ctx, &job, rows); err != nil || !created {
					b.Fatalf("CreateBulkJob = %v, %v", created, err)
				}
			}
		})
	}
}
