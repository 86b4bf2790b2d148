package handlers_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"

	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
)

// seedRows is the size of every list of the benchmark's service: users, transfers, transactions
// and payout links.
const seedRows = 100_000

// seed fills the service's database with seedRows users, refill transfers (each with its ledger
// line, the ledger kept balanced) and canceled payout links, written straight to its tables in a
// few statements: through the API it would take minutes. One real deposit first makes the app's
// accounts, whose lines the seeded ones copy.
func seed(b *testing.B, h *harness) {
	b.Helper()
	ctx := context.Background()
	h.deposit(1_00)
	db := h.env.Store.DB()
	app := h.env.AppID
	var debit, credit int64
	var source, destination string
	if err := db.QueryRowContext(ctx, `SELECT debit_account, credit_account, source_name, destination_name
		FROM postings WHERE app_id = ? LIMIT 1`, app).Scan(&debit, &credit, &source, &destination); err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-24 * time.Hour).UnixMicro()
	series := fmt.Sprintf(`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < %d) `, seedRows)
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO users (id, app_id, first_name, last_name, email, email_key, country_code, phone_number, status,
				search, created) ` + series + `SELECT printf('10000000-0000-4000-8000-%012d', n), ?, 'Seed', 'User ' || n,
				'seed' || n || '@example.com', 'seed' || n || '@example.com', '1', '5550100', 'unverified',
				'seed user ' || n || ' seed' || n || '@example.com', ? + n FROM s`, []any{app, base}},
			{`INSERT INTO transfers (id, app_id, status, type, amount, created, updated) ` + series +
				`SELECT printf('20000000-0000-4000-8000-%012d', n), ?, 'completed', 'refill', 1, ? + n, ? + n FROM s`,
				[]any{app, base, base}},
			// Every tenth line names seeded user 1, for an export of a tenth of them.
			{`INSERT INTO postings (app_id, transfer_id, debit_account, credit_account, amount, state, type, user_id,
				source_name, destination_name, created) ` + series + `SELECT ?, printf('20000000-0000-4000-8000-%012d', n),
				?, ?, 1, 'posted', 'refill', CASE WHEN n % 10 = 0 THEN ? END, ?, ?, ? + n FROM s`,
				[]any{app, debit, credit, seedUser(1), source, destination, base}},
			{`UPDATE ledger_accounts SET debits_posted = debits_posted + ? WHERE id = ?`, []any{seedRows, debit}},
			{`UPDATE ledger_accounts SET credits_posted = credits_posted + ? WHERE id = ?`, []any{seedRows, credit}},
			{`INSERT INTO payout_links (id, app_id, amount, status, payee_first_name, payee_last_name, payee_email,
				delivery_method, search, created, updated) ` + series + `SELECT printf('30000000-0000-4000-8000-%012d', n),
				?, 1, 'canceled', 'Seed', 'Payee ' || n, 'payee' || n || '@example.com', 'link',
				'seed payee ' || n || ' payee' || n || '@example.com', ? + n, ? + n FROM s`, []any{app, base, base}},
		} {
			if _, err := tx.ExecContext(ctx, db.Rebind(q.sql), q.args...); err != nil {
				return fmt.Errorf("%.60s…: %w", q.sql, err)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// deepCursor is the id a list page's ?after= cursor names to show its page number page: the
// last row of the page before, newest first.
func deepCursor(b *testing.B, h *harness, query string, perPage, page int) string {
	b.Helper()
	var id string
	if err := h.env.Store.DB().QueryRowContext(context.Background(), query+` LIMIT 1 OFFSET ?`,
		h.env.AppID, (page-1)*perPage-1).Scan(&id); err != nil {
		b.Fatal(err)
	}
	return id
}

// BenchmarkListPages times each list page of the dashboard, through its handler, the client and
// the service's HTTP API, on page 1 and on page 1,000 of lists of 100,000 rows: cursor pagination
// makes both cost the same.
//
//	go test ./handlers -run '^$' -bench ListPages -benchtime 200x
func BenchmarkListPages(b *testing.B) {
	h := newHarness(b)
	seed(b, h)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	for _, list := range []struct {
		path    string
		perPage int
		ids     string // the list's ids, newest first, for the cursor
	}{
		{"/transfers", 50, `SELECT id FROM transfers WHERE app_id = ? ORDER BY seq DESC`},
		{"/transactions", 50, `SELECT CAST(id AS TEXT) FROM postings WHERE app_id = ? ORDER BY id DESC`},
		{"/payout-links", 25, `SELECT id FROM payout_links WHERE app_id = ? ORDER BY seq DESC`},
		{"/users", 25, `SELECT id FROM users WHERE app_id = ? AND deleted_at IS NULL ORDER BY seq DESC`},
	} {
		for _, page := range []int{1, 1000} {
			url := list.path
			if page > 1 {
				url += "?after=" + deepCursor(b, h, list.ids, list.perPage, page)
			}
			b.Run(fmt.Sprintf("%s/page%d", strings.TrimPrefix(list.path, "/"), page), func(b *testing.B) {
				for b.Loop() {
					res := admin.get(url)
					if res.StatusCode != http.StatusOK || strings.Count(res.body, "<tr data-id=") != list.perPage {
						b.Fatalf("GET %s: status %d, %d rows", url, res.StatusCode, strings.Count(res.body, "<tr data-id="))
					}
				}
			})
		}
	}

	// Exports over a real connection, of 10,001 and of 100,001 transactions: if the rows stream
	// through, the heap grows by the same small amount for both; were they gathered first, it
	// would grow ten times as much for the larger one. The collector runs often meanwhile, so the
	// growth measured is data kept, not garbage waiting.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()
	defer func() { stop(); <-served }()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	for _, export := range []struct {
		name  string
		query string
		rows  int
	}{
		{"export-10k", "?user=" + seedUser(1), seedRows / 10},
		{"export-100k", "", seedRows + 1},
	} {
		b.Run(export.name, func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(5))
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/transactions/export"+export.query, nil)
				for name, value := range admin.cookies {
					req.AddCookie(&http.Cookie{Name: name, Value: value})
				}
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				peak, done := heapPeak()
				res, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var lines, size int
				sc := bufio.NewScanner(res.Body)
				for sc.Scan() {
					lines++
					size += len(sc.Bytes()) + 1
				}
				res.Body.Close()
				done()
				if err := sc.Err(); err != nil || res.StatusCode != http.StatusOK || lines != export.rows+1 {
					b.Fatalf("export: status %d, %d lines, want %d rows and a header; %v", res.StatusCode, lines, export.rows, err)
				}
				b.ReportMetric(float64(size)/(1<<20), "file-MiB")
				b.ReportMetric(float64(int64(*peak)-int64(before.HeapInuse))/(1<<20), "heap-growth-MiB")
			}
		})
	}
}

// seedUser is the id of the seeded user n.
func seedUser(n int) string { return fmt.Sprintf("10000000-0000-4000-8000-%012d", n) }

// heapPeak samples the heap in use every 10 ms until done is called; peak holds the most seen.
func heapPeak() (peak *uint64, done func()) {
	peak = new(uint64)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			*peak = max(*peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return peak, func() { close(stop); wg.Wait() }
}
