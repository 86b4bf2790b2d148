package store

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestSpellingDecidesNothing: what a write transaction does before a statement (write the rows
// it holds back, drop its copies of rows it read) must not depend on how the statement is
// spelled. A read of a held table, however written, sees the rows held; a write of a copied
// table, however written, is seen by the next read of the copy.
func TestSpellingDecidesNothing(t *testing.T) {
	spellings := []struct{ name, countTransfers, renameApp string }{
		{"as the store writes it", `SELECT count(*) FROM transfers WHERE id = ?`, `UPDATE apps SET name = ? WHERE id = ?`},
		{"upper case", `SELECT COUNT(*) FROM TRANSFERS WHERE ID = ?`, `UPDATE APPS SET NAME = ? WHERE ID = ?`},
		{"lower case", `select count(*) from transfers where id = ?`, `update apps set name = ? where id = ?`},
		{"quoted", `SELECT count(*) FROM "transfers" WHERE id = ?`, `UPDATE "apps" SET name = ? WHERE id = ?`},
		{"laid out", "SELECT count(*)\n\tFROM\ttransfers\nWHERE id = ?", "UPDATE\n\tapps\nSET name = ? WHERE id = ?"},
	}
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		const appID = "00000000-0000-4000-8000-000000000001"
		if err := st.CreateApp(ctx, &service.AppRecord{ID: appID, Name: "acme", ClientID: "ck_acme",
			Created: t0}); err != nil {
			t.Fatal(err)
		}
		for i, s := range spellings {
			t.Run(s.name, func(t *testing.T) {
				transfer := &service.TransferRecord{AppID: appID, Updated: t0, Transfer: payouts.Transfer{
					ID: "30000000-0000-4000-8000-00000000000" + string(rune('0'+i)), Created: payouts.NewTime(t0),
					Type: payouts.TransferRefill, Amount: 1, Status: payouts.TransferCompleted}}
				name := "renamed " + s.name
				err := st.InTx(ctx, func(sq service.Queries) error {
					q := sq.(*Queries)
					if err := q.CreateTransfer(ctx, transfer); err != nil {
						return err
					}
					var n int
					if err := q.queryRow(ctx, s.countTransfers, transfer.ID).Scan(&n); err != nil {
						return err
					}
					if n != 1 {
						t.Errorf("%q saw %d transfers held, want 1", s.countTransfers, n)
					}
					if _, err := q.GetApp(ctx, appID); err != nil { // read, and copied for the batch
						return err
					}
					if _, err := q.exec(ctx, s.renameApp, name, appID); err != nil {
						return err
					}
					a, err := q.GetApp(ctx, appID)
					if err != nil {
						return err
					}
					if a.Name != name {
						t.Errorf("after %q the app reads %q, want %q", s.renameApp, a.Name, name)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestMustBeWritten: a statement needs written the held rows of the tables it touches, and the
// events its webhook deliveries name; tables nothing holds need none.
func TestMustBeWritten(t *testing.T) {
	tests := []struct {
		name    string
		touches table
		want    table
	}{
		{"transfers", transfersTable, transfersTable},
		{"postings and accounts", postingsTable | accountsTable, postingsTable},
		{"deliveries", deliveriesTable, deliveriesTable | eventsTable},
		{"users and keys", usersTable | keysTable | otherTables, 0},
		{"all", touchingAll.reads, heldTables},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustBeWritten(tt.touches); got != tt.want {
				t.Errorf("mustBeWritten(%b) = %b, want %b", tt.touches, got, tt.want)
			}
		})
	}
}
