package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// BenchmarkListTransfers reads a page of 100 transfers from a 100,000-transfer app at the first
// page and at the thousandth page of 100: keyset pagination makes both cost the same.
//
//	go test ./store -run '^$' -bench ListTransfers -benchtime 2000x
func BenchmarkListTransfers(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const total = 100_000
	appID := "00000000-0000-4000-8000-000000000001"
	if err := st.CreateApp(ctx, &service.AppRecord{ID: appID, Name: "bench", ClientID: "ck", Created: t0}); err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 0, total)
	err = st.DB().InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.Prepare(`INSERT INTO transfers (id, app_id, status, type, amount, created, updated) VALUES (?, ?, 'completed', 'balance', 100, 0, 0)`)
		if err != nil {
			return err
		}
		for i := 0; i < total; i++ {
			id := fmt.Sprintf("30000000-0000-4000-8000-%012d", i)
			ids = append(ids, id)
			if _, err := stmt.Exec(id, appID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// Newest first: page 1 starts at the end; page 1,000 starts after the 99,900th newest.
	for _, bc := range []struct {
		name string
		page payouts.Page
	}{
		{"page1", payouts.Page{Limit: 100}},
		{"page1000", payouts.Page{Limit: 100, StartingAfter: ids[total-999*100]}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				rows, _, err := st.ListTransfers(ctx, appID, bc.page, payouts.TransferFilter{})
				if err != nil || len(rows) != 100 {
					b.Fatal(len(rows), err)
				}
			}
		})
	}
}
