package api_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestListTransactions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env

	var all payouts.List[payouts.Transaction]
	call{method: "GET", path: "/v2/transactions", status: 200}.do(t, env).Decode(t, &all)
	// the deposit's line and the transfer's line
	if len(all.Data) != 2 || all.HasMore || all.Data[0].TransferID != w.transfer.ID {
		t.Fatalf("transactions %+v", all)
	}
	t.Run("by user", func(t *testing.T) {
		var l payouts.List[payouts.Transaction]
		call{method: "GET", path: "/v2/transactions?user_id=" + w.user.ID, status: 200}.do(t, env).Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].TransferID != w.transfer.ID {
			t.Errorf("user_id filter: %+v", l.Data)
		}
	})
	t.Run("by type and status", func(t *testing.T) {
		deposit := all.Data[1].TransferID // the deposit's line is a refill
		for _, tc := range []struct {
			query string
			want  []string // the transfers of the lines, newest first
		}{
			{"type=refill", []string{deposit}},
			{"type=balance", []string{w.transfer.ID}},
			{"status=posted", []string{w.transfer.ID, deposit}},
			{"status=pending", nil},
			{"type=balance&status=voided", nil},
		} {
			var l payouts.List[payouts.Transaction]
			call{method: "GET", path: "/v2/transactions?" + tc.query, status: 200}.do(t, env).Decode(t, &l)
			var got []string
			for _, tx := range l.Data {
				got = append(got, tx.TransferID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: lines of %v, want %v", tc.query, got, tc.want)
			}
			var sum payouts.Summary
			call{method: "GET", path: "/v2/transactions/summary?" + tc.query, status: 200}.do(t, env).Decode(t, &sum)
			if sum.Count != int64(len(tc.want)) {
				t.Errorf("%s: the summary counts %d, want %d", tc.query, sum.Count, len(tc.want))
			}
		}
	})
	t.Run("pages", func(t *testing.T) {
		var first, second payouts.List[payouts.Transaction]
		call{method: "GET", path: "/v2/transactions?limit=1", status: 200}.do(t, env).Decode(t, &first)
		if len(first.Data) != 1 || !first.HasMore {
			t.Fatalf("first page %+v", first)
		}
		after := strconv.FormatInt(first.Data[0].ID, 10)
		call{method: "GET", path: "/v2/transactions?limit=1&starting_after=" + after, status: 200}.do(t, env).Decode(t, &second)
		if len(second.Data) != 1 || second.HasMore || second.Data[0].ID == first.Data[0].ID {
			t.Errorf("second page %+v after %+v", second, first)
		}
	})

	var otherLines payouts.List[payouts.Transaction]
	env.DoAs(t, w.other, "GET", "/v2/transactions", nil).Decode(t, &otherLines)
	otherLine := strconv.FormatInt(otherLines.Data[0].ID, 10)

	calls := pageCalls("/v2/transactions")
	calls = append(calls,
		call{name: "integer cursor that names nothing", method: "GET", path: "/v2/transactions?starting_after=999999", status: 400, code: payouts.EInvalidInput},
		call{name: "another app's cursor", method: "GET", path: "/v2/transactions?ending_before=" + otherLine, status: 400, code: payouts.EInvalidInput},
		call{name: "malformed user_id", method: "GET", path: "/v2/transactions?user_id=5", status: 400, code: payouts.EInvalidInput, field: "user_id"},
		call{name: "unknown type", method: "GET", path: "/v2/transactions?type=gift", status: 400, code: payouts.EInvalidInput, field: "type"},
		call{name: "unknown status", method: "GET", path: "/v2/transactions/summary?status=done", status: 400, code: payouts.EInvalidInput, field: "status"},
	)
	runCalls(t, env, calls)
}

func TestGetTransaction(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	var mine, theirs payouts.List[payouts.Transaction]
	env.Do(t, "GET", "/v2/transactions", nil).Decode(t, &mine)
	env.DoAs(t, w.other, "GET", "/v2/transactions", nil).Decode(t, &theirs)
	id := mine.Data[0].ID

	t.Run("success", func(t *testing.T) {
		var tx payouts.Transaction
		call{method: "GET", path: "/v2/transactions/" + strconv.FormatInt(id, 10), status: 200}.do(t, env).Decode(t, &tx)
		if tx.ID != id || tx.TransferID != w.transfer.ID || tx.Amount == 0 || tx.Type != payouts.TransactionBalance {
			t.Errorf("transaction %+v", tx)
		}
	})
	var calls []call
	for _, c := range []struct{ name, id string }{
		{"not a number", "abc"},
		{"a uuid", unknownID},
		{"zero", "0"},
		{"negative", "-1"},
		{"fractional", "1.5"},
		{"beyond int64", "9223372036854775808"},
		{"unknown", "999999999"},
		{"another app's", strconv.FormatInt(theirs.Data[0].ID, 10)},
	} {
		calls = append(calls, call{name: c.name, method: "GET", path: "/v2/transactions/" + c.id, status: 404, code: payouts.ENotFound})
	}
	runCalls(t, env, calls)
}
