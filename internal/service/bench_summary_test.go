package service_test

import (
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

// BenchmarkTransfersPageWithSummary is what the dashboard's transfers page asks of the service
// on an app of 1,000,000 transfers: a page of 50 and the count and totals of the filtered set.
// p95-ms is the slowest 5% of the pairs.
//
//	go test ./internal/service -run '^$' -bench TransfersPageWithSummary -benchtime 200x
func BenchmarkTransfersPageWithSummary(b *testing.B) {
	const total = 1_000_000
	e := newEnv(b, 0)
	seedTransfers(b, e, total)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // seedTransfers' first transfer
	march := payouts.TransferFilter{Range: payouts.Range{CreatedFrom: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		CreatedTo: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}}
	inMarch := int64(31 * 24 * time.Hour / seedSpacing)
	marchAmount := march
	marchAmount.AmountMin, marchAmount.AmountMax = 1, 1
	for _, bc := range []struct {
		name   string
		filter payouts.TransferFilter
		count  int64
	}{
		{"all", payouts.TransferFilter{}, total},
		{"completed_refills", payouts.TransferFilter{Type: payouts.TransferRefill, Status: payouts.TransferCompleted}, total},
		{"second_half", payouts.TransferFilter{Range: payouts.Range{CreatedFrom: start.Add(total / 2 * seedSpacing)}}, total / 2},
		{"march", march, inMarch},
		{"march_amount", marchAmount, inMarch},
		{"march_no_match", payouts.TransferFilter{Range: payouts.Range{CreatedFrom: march.CreatedFrom, CreatedTo: march.CreatedTo, AmountMin: 2}}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				began := time.Now()
				_, err := e.svc.ListTransfers(e.ctx, e.app, payouts.Page{Limit: 50}, bc.filter)
				if err != nil {
					b.Fatal(err)
				}
				sum, err := e.svc.SummarizeTransfers(e.ctx, e.app, bc.filter)
				took = append(took, time.Since(began))
				if err != nil || (sum.Exact && sum.Count != bc.count) || !near(sum.Count, bc.count) {
					b.Fatalf("summary %+v, %v; want count %d", sum, err, bc.count)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// near reports whether an estimated count is within 1% of the true one.
func near(estimate, count int64) bool {
	return estimate*100 >= count*99 && estimate*100 <= count*101
}
