package payoutd

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/metrics"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The periodic check reports a sound ledger as no violation with the time it ran, and a ledger
// whose totals were changed behind its back as a violation, with an error in the log naming
// the app.
func TestPeriodicLedgerCheck(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, db string) {
		ctx := context.Background()
		var logs bytes.Buffer
		m := metrics.New()
		clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
		srv, err := New(ctx, Config{DB: db, EncryptionKey: bytes.Repeat([]byte{7}, KeySize), Metrics: m, Clock: clock},
			slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		creds, err := srv.CreateApp(ctx, "Watched")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Service().Deposit(ctx, creds.AppID, creds.AppID, payouts.DepositRequest{Amount: 10_00}); err != nil {
			t.Fatal(err)
		}
		scrape := func() string {
			t.Helper()
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			b, _ := io.ReadAll(rec.Body)
			return string(b)
		}
		wantSeries := func(series ...string) {
			t.Helper()
			body := scrape()
			for _, s := range series {
				if !strings.Contains(body, s+"\n") {
					t.Errorf("metrics lack %q", s)
				}
			}
		}

		srv.checkLedgersOnce(ctx)
		wantSeries("disburse_ledger_check_violations 0",
			"disburse_ledger_check_last_success_timestamp_seconds "+strconv.FormatFloat(float64(clock.Now().Unix()), 'g', -1, 64))
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Errorf("a sound ledger logged an error:\n%s", logs.String())
		}

		sqlDB := srv.Store().DB()
		if err := sqlDB.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, sqlDB.Rebind(
				`UPDATE ledger_accounts SET credits_posted = credits_posted + 1 WHERE app_id = ? AND kind = 'app_wallet'`), creds.AppID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		srv.checkLedgersOnce(ctx)
		wantSeries("disburse_ledger_check_violations 1")
		if !strings.Contains(logs.String(), `level=ERROR msg="ledger invariant violated" app=`+creds.AppID) {
			t.Errorf("no error logged for the violation:\n%s", logs.String())
		}
	})
}
