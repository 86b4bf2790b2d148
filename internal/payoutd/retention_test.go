package payoutd

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// Prune keeps events within the configured retention and deletes them past it.
func TestPruneByRetention(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
		srv, err := New(ctx, Config{DB: db, EncryptionKey: bytes.Repeat([]byte{7}, KeySize), Clock: clock,
			Retention: 30 * 24 * time.Hour}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		creds, err := srv.CreateApp(ctx, "Kept")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Service().CreateUser(ctx, creds.AppID, payouts.CreateUserRequest{FirstName: "Ret", LastName: "Ention",
			Email: "ret@example.com", CountryCode: "1", PhoneNumber: "4155550144"}); err != nil {
			t.Fatal(err)
		}
		events := func() int {
			t.Helper()
			list, err := srv.Service().ListEvents(ctx, creds.AppID, payouts.Page{Limit: payouts.MaxLimit}, payouts.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			return len(list.Data)
		}
		before := events()
		if before == 0 {
			t.Fatal("creating a user wrote no event")
		}
		clock.Advance(29 * 24 * time.Hour)
		if p, err := srv.Prune(ctx); err != nil || p != (store.Pruned{}) || events() != before {
			t.Fatalf("within the retention: pruned %+v, %v; %d events left, want %d", p, err, events(), before)
		}
		clock.Advance(2 * 24 * time.Hour)
		if p, err := srv.Prune(ctx); err != nil || p.Events != before || events() != 0 {
			t.Fatalf("past the retention: pruned %+v, %v; %d events left, want none", p, err, events())
		}
	})
}
