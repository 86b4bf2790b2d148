package service_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// BenchmarkListTransfersDepth reads a page of 100 transfers, with their transactions, through
// the service from an app of 1,000,000 transfers: the newest page and the oldest one, a million
// rows deep. Keyset pages cost the same at any depth; p99-ms is the slowest 1% of pages.
//
//	go test ./internal/service -run '^$' -bench ListTransfersDepth -benchtime 2000x
func BenchmarkListTransfersDepth(b *testing.B) {
	const total = 1_000_000
	e := newEnv(b, 0)
	ids := seedTransfers(b, e, total)
	for _, bc := range []struct {
		name string
		page payouts.Page
	}{
		{"page1", payouts.Page{Limit: 100}},
		{"depth1000000", payouts.Page{Limit: 100, StartingAfter: ids[100]}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				l, err := e.svc.ListTransfers(e.ctx, e.app, bc.page, payouts.TransferFilter{})
				took = append(took, time.Since(start))
				if err != nil || len(l.Data) != 100 || len(l.Data[0].Transactions) != 1 {
					b.Fatalf("page: %v", err)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// seedSpacing puts 1,000,000 seeded transfers across a year, about 86,000 a month.
const seedSpacing = 30 * time.Second

// seedTransfers writes n completed refills of one cent, oldest first and seedSpacing apart from
// 2026-01-01, each with its posting from the bank to the app wallet, straight into the database,
// and the two accounts' totals to match.
func seedTransfers(b *testing.B, e *env, n int) []string {
	b.Helper()
	ctx := context.Background()
	bank, _ := e.st.EnsureAccount(ctx, e.app, ledger.External, "bank")
	wallet, _ := e.st.EnsureAccount(ctx, e.app, ledger.AppWallet, "")
	tx, err := e.st.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	transfer, err := tx.Prepare(`INSERT INTO transfers (id, app_id, status, type, amount, created, updated)
		VALUES (?, ?, 'completed', 'refill', 1, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	posting, err := tx.Prepare(`INSERT INTO postings (app_id, transfer_id, debit_account, credit_account, amount, state,
		type, source_name, destination_name, created) VALUES (?, ?, ?, ?, 1, 'posted', 'refill', 'Bank', 'Acme', ?)`)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, n)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for i := range ids {
		ids[i] = fmt.Sprintf("40000000-0000-4000-8000-%012d", i)
		created := at + int64(i)*seedSpacing.Microseconds()
		if _, err := transfer.Exec(ids[i], e.app, created, created); err != nil {
			b.Fatal(err)
		}
		if _, err := posting.Exec(e.app, ids[i], bank.ID, wallet.ID, created); err != nil {
			b.Fatal(err)
		}
	}
	_, err = tx.Exec(`UPDATE ledger_accounts SET debits_posted = debits_posted + ? WHERE id = ?`, n, bank.ID)
	if err == nil {
		_, err = tx.Exec(`UPDATE ledger_accounts SET credits_posted = credits_posted + ? WHERE id = ?`, n, wallet.ID)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		b.Fatal(err)
	}
	return ids
}
