package dashstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/sqldb"
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

// TestBulkRepeats: a job's rows that pay what a row of an earlier job of the app within the
// window paid are its repeats, named with that job and row; rows that were never sent (a problem, a
// skip) make none, nor do another app's jobs, later jobs or jobs older than the window. Only
// another operator than the uploader confirms paying them, and only before the job runs.
func TestBulkRepeats(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		const window = 30 * 24 * time.Hour
		create := func(app, hash string, at time.Time, rows ...dashstore.BulkRow) dashstore.BulkJob {
			t.Helper()
			job := dashstore.BulkJob{AppID: app, FileHash: hash, FileName: hash + ".csv", OperatorID: "op1",
				Status: dashstore.BulkPreviewed, Created: at}
			if _, err := s.CreateBulkJob(ctx, &job, rows); err != nil {
				t.Fatal(err)
			}
			return job
		}
		// Rows of one user pay the same; of another, not.
		row := func(n int, user, problem string) dashstore.BulkRow {
			return dashstore.BulkRow{Row: n, UserRef: user, UserID: user, Amount: 1_00, Method: "wallet", Problem: problem}
		}
		create("app1", "too-old", t0.Add(-window-time.Second), row(1, "u4", ""))
		first := create("app1", "first", t0, row(1, "u1", ""), row(2, "u2", "no user"), row(3, "u3", ""), row(4, "u5", ""))
		if err := s.SetBulkOutcomes(ctx, first.ID, []dashstore.BulkRow{{Row: 4, Outcome: dashstore.BulkSkipped}}); err != nil {
			t.Fatal(err)
		}
		create("app2", "other-app", t0, row(1, "u3", ""))
		later := t0.Add(window - time.Second)
		second := create("app1", "second", later, row(1, "u0", ""), row(2, "u3", ""), row(3, "u1", ""),
			row(4, "u2", ""), row(5, "u4", ""), row(6, "u5", ""), row(7, "u1", "a problem"))
		got, err := s.BulkRepeats(ctx, second, window)
		want := []dashstore.BulkRepeat{
			{Row: 2, EarlierJobID: first.ID, EarlierFile: "first.csv", EarlierRow: 3, Earlier: t0},
			{Row: 3, EarlierJobID: first.ID, EarlierFile: "first.csv", EarlierRow: 1, Earlier: t0},
		}
		if err != nil || !slices.EqualFunc(got, want, func(a, b dashstore.BulkRepeat) bool {
			return a.Row == b.Row && a.EarlierJobID == b.EarlierJobID && a.EarlierFile == b.EarlierFile &&
				a.EarlierRow == b.EarlierRow && a.Earlier.Equal(b.Earlier)
		}) {
			t.Errorf("BulkRepeats = %+v, %v; want %+v", got, err, want)
		}
		if got, err := s.BulkRepeats(ctx, first, window); err != nil || len(got) != 0 {
			t.Errorf("the first job repeats %+v, %v; want nothing (the later job does not count)", got, err)
		}

		steps := []struct {
			name string
			app  string
			by   dashstore.Operator
			want bool
		}{
			{"the uploader cannot confirm", "app1", dashstore.Operator{ID: "op1", Email: "up@example.com"}, false},
			{"nor another app's operator", "app2", dashstore.Operator{ID: "op2", Email: "two@example.com"}, false},
			{"another operator confirms", "app1", dashstore.Operator{ID: "op2", Email: "two@example.com"}, true},
		}
		for _, st := range steps {
			if ok, err := s.ConfirmBulkRepeats(ctx, st.app, second.ID, st.by, later); err != nil || ok != st.want {
				t.Errorf("%s: %v, %v", st.name, ok, err)
			}
		}
		if j, err := s.BulkJob(ctx, "app1", second.ID); err != nil || j.RepeatsConfirmedBy != "op2" ||
			j.RepeatsConfirmedEmail != "two@example.com" || !j.RepeatsConfirmed.Equal(later) {
			t.Errorf("confirmed job %+v, %v", j, err)
		}
		if err := s.SetBulkStatus(ctx, first.ID, dashstore.BulkRunning, later); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.ConfirmBulkRepeats(ctx, "app1", first.ID, dashstore.Operator{ID: "op2"}, later); err != nil || ok {
			t.Errorf("confirming a job that runs: %v, %v; want refused", ok, err)
		}
	})
}

// TestBulkRepeatsByPayment: a row repeats an earlier job's row that pays the same user the
// same cents by the same method ("default" being any payout platform), whatever either memo
// says, and whether it was uploaded within the window or earlier the same UTC day.
func TestBulkRepeatsByPayment(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		paid := dashstore.BulkRow{Row: 1, UserRef: "ada@example.com", UserID: "ada", Amount: 10_00, Memo: "June bonus", Method: "paypal"}
		morning := time.Date(2026, 3, 1, 0, 30, 0, 0, time.UTC)
		lastNight := time.Date(2026, 2, 28, 23, 30, 0, 0, time.UTC)
		noon := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		tests := []struct {
			name    string
			earlier time.Time
			window  time.Duration
			edit    func(r *dashstore.BulkRow)
			repeats bool
		}{
			{"the same row", morning, time.Hour, func(*dashstore.BulkRow) {}, true},
			{"a trailing point on the memo", morning, time.Hour, func(r *dashstore.BulkRow) { r.Memo += "." }, true},
			{"a zero-width space in the memo", morning, time.Hour, func(r *dashstore.BulkRow) { r.Memo = "June\u200b bonus" }, true},
			{"no memo", morning, time.Hour, func(r *dashstore.BulkRow) { r.Memo = "" }, true},
			{"the user by id", morning, time.Hour, func(r *dashstore.BulkRow) { r.UserRef = "ada" }, true},
			{"the default method", morning, time.Hour, func(r *dashstore.BulkRow) { r.Method = "default" }, true},
			{"another platform", morning, time.Hour, func(r *dashstore.BulkRow) { r.Method = "venmo" }, false},
			{"the wallet", morning, time.Hour, func(r *dashstore.BulkRow) { r.Method = "wallet" }, false},
			{"another amount", morning, time.Hour, func(r *dashstore.BulkRow) { r.Amount++ }, false},
			{"another user", morning, time.Hour, func(r *dashstore.BulkRow) { r.UserID = "bob" }, false},
			{"the day before, outside the window", lastNight, time.Hour, func(*dashstore.BulkRow) {}, false},
			{"the day before, inside the window", lastNight, 13 * time.Hour, func(*dashstore.BulkRow) {}, true},
		}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				app := fmt.Sprintf("app%d", i)
				before := dashstore.BulkJob{AppID: app, FileHash: "before", FileName: "before.csv", OperatorID: "op1",
					Status: dashstore.BulkDone, Created: tc.earlier}
				if _, err := s.CreateBulkJob(ctx, &before, []dashstore.BulkRow{paid}); err != nil {
					t.Fatal(err)
				}
				again := paid
				tc.edit(&again)
				job := dashstore.BulkJob{AppID: app, FileHash: "again", FileName: "again.csv", OperatorID: "op1",
					Status: dashstore.BulkPreviewed, Created: noon}
				if _, err := s.CreateBulkJob(ctx, &job, []dashstore.BulkRow{again}); err != nil {
					t.Fatal(err)
				}
				got, err := s.BulkRepeats(ctx, job, tc.window)
				if err != nil || (len(got) == 1) != tc.repeats || len(got) > 1 {
					t.Errorf("BulkRepeats = %+v, %v; want a repeat: %v", got, err, tc.repeats)
				}
			})
		}
	})
}

// TestFailureCounts checks the overview's counts of payouts that failed without a transfer: a
// bulk row refused (not one whose transfer failed, which counts as a failed transfer), and an
// approved payout the service refused; each of its own app and window.
func TestFailureCounts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		job := dashstore.BulkJob{AppID: "app", FileHash: "f", FileName: "f.csv", OperatorID: "op", Status: dashstore.BulkPreviewed, Created: t0}
		if _, err := s.CreateBulkJob(ctx, &job, bulkRows(4)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetBulkOutcomes(ctx, job.ID, []dashstore.BulkRow{{Row: 1, Outcome: dashstore.BulkFailed, Error: "no W-9"},
			{Row: 2, Outcome: dashstore.BulkFailed, TransferID: "t2"}, {Row: 3, Outcome: dashstore.BulkPaid, TransferID: "t3"},
			{Row: 4, Outcome: dashstore.BulkSkipped}}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetBulkStatus(ctx, job.ID, dashstore.BulkDone, t0); err != nil {
			t.Fatal(err)
		}
		maker := mustCreate(t, s, "maker@example.com", dashstore.RoleOperations)
		checker := mustCreate(t, s, "checker@example.com", dashstore.RoleManager)
		for i, status := range []dashstore.ApprovalStatus{dashstore.ApprovalFailed, dashstore.ApprovalApproved} {
			a := newApproval(fmt.Sprintf("33333333-3333-4333-8333-33333333333%d", i), maker)
			if _, err := s.CreateApproval(ctx, a, t0); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.StartApproval(ctx, a.ID, checker, t0); err != nil {
				t.Fatal(err)
			}
			if _, err := s.FinishApproval(ctx, a.ID, status, "", "", t0); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			name              string
			app, kind         string
			since             time.Time
			bulkRows, payouts int
		}{
			{"in the window", "app", "payout", t0, 1, 1},
			{"before the window", "app", "payout", t0.Add(time.Second), 0, 0},
			{"another app", "other", "payout", t0, 0, 0},
			{"another kind", "app", "payout_link", t0, 1, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if n, err := s.CountFailedBulkRows(ctx, tc.app, tc.since); err != nil || n != tc.bulkRows {
					t.Errorf("CountFailedBulkRows = %d, %v; want %d", n, err, tc.bulkRows)
				}
				if n, err := s.CountFailedApprovals(ctx, tc.app, tc.kind, tc.since); err != nil || n != tc.payouts {
					t.Errorf("CountFailedApprovals = %d, %v; want %d", n, err, tc.payouts)
				}
			})
		}
	})
}

// TestBulkRepeatsOfRowsStoredBefore0009: rows stored while a repeat was matched by a hashed
// fingerprint (memo included) are matched by what they pay once migration 0009 drops it, so a
// row paid before the upgrade is not paid again by editing its memo after it.
func TestBulkRepeatsOfRowsStoredBefore0009(t *testing.T) {
	for name, dsn := range engines {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsn(t)
			db, err := sqldb.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			before := fstest.MapFS{}
			all, err := fs.Glob(os.DirFS("."), "migrations/*/*.sql")
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range all {
				if path.Base(name) < "0009" {
					b, err := os.ReadFile(name)
					if err != nil {
						t.Fatal(err)
					}
					before[name] = &fstest.MapFile{Data: b}
				}
			}
			if err := db.Migrate(ctx, before, "migrations", "dashboard_migrations"); err != nil {
				t.Fatal(err)
			}
			err = db.InTx(ctx, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO bulk_jobs (id, app_id, file_hash, file_name, operator_id,
					status, created_at, updated_at) VALUES ('old', 'app', 'h1', 'june.csv', 'op1', 'done', ?, ?)`),
					sqldb.Micros(t0), sqldb.Micros(t0)); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO bulk_rows (job_id, row_num, user_ref, user_id, amount, memo, method,
					problem, outcome, transfer_id, error, fingerprint) VALUES ('old', 1, 'ada@example.com', 'ada', 1000, 'June bonus',
					'wallet', '', 'paid', 't1', '', 'a hash of the memo too')`)
				return err
			})
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			s, err := dashstore.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			job := dashstore.BulkJob{AppID: "app", FileHash: "h2", FileName: "june-again.csv", OperatorID: "op1",
				Status: dashstore.BulkPreviewed, Created: t0.Add(time.Hour)}
			if _, err := s.CreateBulkJob(ctx, &job, []dashstore.BulkRow{{Row: 1, UserRef: "ada", UserID: "ada", Amount: 1000,
				Memo: "June bonus.", Method: "wallet"}}); err != nil {
				t.Fatal(err)
			}
			got, err := s.BulkRepeats(ctx, job, time.Hour)
			if err != nil || len(got) != 1 || got[0].EarlierJobID != "old" || got[0].EarlierRow != 1 {
				t.Errorf("BulkRepeats = %+v, %v; want row 1 of the job stored before 0009", got, err)
			}
		})
	}
}
