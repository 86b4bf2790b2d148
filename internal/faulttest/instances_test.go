package faulttest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestTwoInstancesShareState runs two payoutd and two dashboards on one PostgreSQL server (the
// service's database and the dashboards' database), as production runs several of each behind a
// load balancer, and checks that what they share lives in the databases:
//
//   - the API's wrong-key throttle counts failures sent to either payoutd together, and a
//     restart keeps the count;
//   - a bulk job is run by one dashboard at a time; SIGKILLed mid-job, the other dashboard takes
//     it over once its lease ends and finishes it, and the service holds one payout per row.
func TestTwoInstancesShareState(t *testing.T) {
	ctx := context.Background()
	db := database(t, "postgres")
	a, b := newDaemon(t, db, 100*time.Millisecond), newDaemon(t, db, 100*time.Millisecond)
	creds := a.createApp("Shared")
	a.mustStart()
	b.mustStart()

	t.Run("the wrong-key throttle counts across processes and restarts", func(t *testing.T) {
		const limit = 50 // api.DefaultAuthFailures
		wrong := func(d *daemon) int {
			t.Helper()
			req, _ := http.NewRequest(http.MethodGet, "http://"+d.addr+"/api/v2/users", nil)
			req.SetBasicAuth(creds.ClientID, "not-the-key")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		for i := range limit {
			if code := wrong([]*daemon{a, b}[i%2]); code != http.StatusUnauthorized {
				t.Fatalf("wrong key %d: %d, want 401", i+1, code)
			}
		}
		// Each process saw 25 failures: counted apart, both would still answer 401.
		for _, d := range []*daemon{a, b} {
			if code := wrong(d); code != http.StatusTooManyRequests {
				t.Errorf("a wrong key past %d failures split across two processes: %d, want 429", limit, code)
			}
		}
		if _, err := a.client(creds).GetApp(ctx, creds.AppID); err != nil {
			t.Errorf("the right key after the throttle tripped: %v", err)
		}
		a.kill()
		a.mustStart()
		if code := wrong(a); code != http.StatusTooManyRequests {
			t.Errorf("a wrong key after a restart: %d, want 429: the restart forgot the count", code)
		}
	})

	t.Run("a bulk job runs once and survives its dashboard", func(t *testing.T) {
		const rows = 600
		c := a.client(creds)
		var users []*payouts.User
		for i := range 10 {
			u, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Payee", LastName: fmt.Sprint(i),
				Email: fmt.Sprintf("payee%d@example.com", i), CountryCode: "1", PhoneNumber: fmt.Sprintf("41555502%02d", i)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
				Email: fmt.Sprintf("paid%d@example.com", i)}); err != nil {
				t.Fatal(err)
			}
			users = append(users, u)
		}
		if _, err := c.Deposit(ctx, creds.AppID, payouts.DepositRequest{Amount: 1_000_000_00}); err != nil {
			t.Fatal(err)
		}

		dashDB := database(t, "postgres")
		store, err := dashstore.Open(ctx, dashDB)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		// A confirmed job no dashboard holds yet, as a dashboard that died just after the
		// confirmation leaves it: both dashboards see it, one claims it.
		job := dashstore.BulkJob{AppID: creds.AppID, FileHash: "two-instances", FileName: "payouts.csv", OperatorID: "op1",
			Status: dashstore.BulkRunning, Created: time.Now()}
		var bulkRows []dashstore.BulkRow
		for i := range rows {
			u := users[i%len(users)]
			bulkRows = append(bulkRows, dashstore.BulkRow{Row: i + 1, UserRef: u.ID, UserID: u.ID, Amount: 1_00,
				Memo: fmt.Sprint("row ", i+1), Method: string(payouts.PlatformPayPal)})
		}
		if _, err := store.CreateBulkJob(ctx, &job, bulkRows); err != nil {
			t.Fatal(err)
		}

		// An operator first, so that neither dashboard creates the first admin (both would at once).
		op := dashstore.Operator{Email: "op@example.com", Name: "Op", Role: dashstore.RoleAdmin, PasswordHash: "unused"}
		if err := store.CreateOperator(ctx, &op, time.Now()); err != nil {
			t.Fatal(err)
		}
		// Confirmed by op on a dashboard whose lease has already ended.
		if ok, err := store.ClaimBulkJob(ctx, creds.AppID, job.ID, "gone", op, time.Now(), time.Now()); err != nil || !ok {
			t.Fatalf("claim for a dashboard gone: %v, %v", ok, err)
		}
		dashboards := []*dashboardProc{startDashboard(t, a, creds, dashDB), startDashboard(t, b, creds, dashDB)}
		// Kill the dashboard holding the job once some rows have their outcome.
		var owner *dashboardProc
		recorded := 0
		for deadline := time.Now().Add(60 * time.Second); owner == nil || recorded == 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no dashboard ran the job within 60s (owner %v, %d rows recorded)", owner != nil, recorded)
			}
			lease, err := store.BulkJobLease(ctx, creds.AppID, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range dashboards {
				if lease.Owner != "" && strings.Contains(lease.Owner, "/"+strconv.Itoa(d.cmd.Process.Pid)+"/") {
					owner = d
				}
			}
			if recorded, err = countRecorded(ctx, store, job.ID); err != nil {
				t.Fatal(err)
			}
		}
		owner.kill()
		if recorded >= rows {
			t.Fatalf("the job ended before its dashboard was killed; the test proves nothing")
		}
		t.Logf("killed the dashboard running the job with %d of %d rows recorded", recorded, rows)

		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			got, err := store.BulkJob(ctx, creds.AppID, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == dashstore.BulkDone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the job is still %s 90s after its dashboard died: no one took it over", got.Status)
			}
		}
		final, err := store.BulkRows(ctx, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The run records each payout as the service took it: sent until its rail settles it
		// (a reader of the job follows it to paid), never failed or missing.
		for _, r := range final {
			if r.Outcome != dashstore.BulkSent && r.Outcome != dashstore.BulkPaid {
				t.Errorf("row %d: %s (%s), want sent or paid", r.Row, r.Outcome, r.Error)
			}
		}
		results, _, err := store.AuditLog(ctx, dashstore.AuditFilter{ObjectType: "bulk", ObjectID: job.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if n := countAction(results, "bulk.result"); n != 1 {
			t.Errorf("the job's result was recorded %d times, want once", n)
		}

		// Through the API: one payout per row, none twice, and the ledger adds up.
		perRow := map[string]int{}
		for tr, err := range c.AllTransfers(ctx, payouts.TransferFilter{Type: payouts.TransferPayout}) {
			if err != nil {
				t.Fatal(err)
			}
			perRow[string(tr.Metadata)]++
		}
		if len(perRow) != rows {
			t.Errorf("%d rows have payouts, want %d", len(perRow), rows)
		}
		for row, n := range perRow {
			if n != 1 {
				t.Errorf("%d payouts for %s, want 1", n, row)
			}
		}
		for _, d := range dashboards {
			d.kill()
		}
	})
	a.kill()
	b.kill()
	checkLedger(t, db, creds.AppID)
}

// countRecorded counts a job's rows that have an outcome.
func countRecorded(ctx context.Context, store *dashstore.Store, jobID string) (int, error) {
	rows, err := store.BulkRows(ctx, jobID)
	n := 0
	for _, r := range rows {
		if r.Outcome != "" {
			n++
		}
	}
	return n, err
}

func countAction(entries []dashstore.AuditEntry, action string) int {
	n := 0
	for _, e := range entries {
		if e.Action == action {
			n++
		}
	}
	return n
}

// dashboardProc is one dashboard process against the Payout Service d, on the database dsn.
type dashboardProc struct {
	cmd  *exec.Cmd
	logs bytes.Buffer
	done bool
}

// startDashboard runs a dashboard with a short bulk lease, so a dead one's job is taken over
// within the test.
func startDashboard(t *testing.T, d *daemon, creds payouts.Credentials, dsn string) *dashboardProc {
	t.Helper()
	p := &dashboardProc{}
	p.cmd = exec.Command(dashboardBin, "--addr", "127.0.0.1:0", "--dashboard-db", dsn,
		"--api-url", "http://"+d.addr+"/api", "--api-client-id", creds.ClientID, "--api-key", creds.APIKey,
		"--app-id", creds.AppID, "--bulk-lease", railLease.String(), "--approval-threshold", "off")
	p.cmd.Stdout, p.cmd.Stderr = &p.logs, &p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("dashboard %d logs:\n%s", p.cmd.Process.Pid, p.logs.String())
		}
	})
	return p
}

// kill ends the dashboard with SIGKILL.
func (p *dashboardProc) kill() {
	if p.done {
		return
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	p.done = true
}
