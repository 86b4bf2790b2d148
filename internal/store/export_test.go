package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
)

// TransferHistoriesSQL is the query TransferHistories runs, with its arguments.
func TransferHistoriesSQL(ids []string) (string, []any) { return transferHistoriesSQL(ids) }

// CreatedSlack is how far a list's seq bounds lie outside its creation range (range.go).
const CreatedSlack = createdSlack

// EventsSeek is the seek of the events list (range.go): the seq of one of the app's events on
// one side of at.
func EventsSeek(st *Store, appID string, at time.Time, before bool) (int64, bool, error) {
	return st.seqBisectionSeek("events")(context.Background(), appID, at, before)
}

// UsersReadAhead returns the ids of the users q's batch holds read ahead, sorted.
func UsersReadAhead(q service.Queries) []string {
	r := q.(*Queries).batchReads()
	if r == nil {
		return nil
	}
	ids := make([]string, 0, len(r.users))
	for id := range r.users {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ReadAhead says what q's batch holds beyond users and keys: how many accounts of appID itself
// (not its users' wallets), whether appID's webhook endpoints, and how many posting ids it has
// reserved and not given.
func ReadAhead(q service.Queries, appID string) (appAccounts int, endpoints bool, postingIDs int) {
	st := q.(*Queries).job.st
	for _, a := range st.netting.read {
		if a.AppID == appID && a.Kind != ledger.UserWallet {
			appAccounts++
		}
	}
	_, endpoints = st.reads.endpoints[appID]
	return appAccounts, endpoints, len(st.postingIDs)
}

// KeysClaimedAhead returns the idempotency keys q's batch claimed ahead that no job took yet,
// sorted.
func KeysClaimedAhead(q service.Queries) []string {
	var keys []string
	for ref := range q.(*Queries).job.st.keys.claimed {
		keys = append(keys, ref.key)
	}
	slices.Sort(keys)
	return keys
}

// BatchState describes what q's batch holds of its jobs' writes, the running job's part
// included: the held rows, the yearly payments held, the deltas kept and the job's, and the keys
// claimed ahead and not taken. What the batch read (accounts, yearly totals, the view's copies)
// and which held rows are written yet are left out: a job that fails keeps them, as they are
// what the database holds. So are posting ids given: ids of a failed job are gaps.
func BatchState(q service.Queries) string {
	st := q.(*Queries).job.st
	var b strings.Builder
	h := &st.held
	describeHeld(&b, "transfers", &h.transfers)
	describeHeld(&b, "postings", &h.postings)
	describeHeld(&b, "payments", &h.payments)
	describeHeld(&b, "events", &h.events)
	describeHeld(&b, "deliveries", &h.deliveries)
	describeHeld(&b, "chain", &h.chain)
	fmt.Fprintf(&b, "yearly payments held %v\n", st.held.paid)
	fmt.Fprintf(&b, "deltas kept %v; the job's net %v\n", st.netting.kept, st.job.net)
	fmt.Fprintf(&b, "keys claimed ahead %v\n", st.keys.claimed)
	return b.String()
}

// BatchOf is q's batch, to tell which jobs shared one.
func BatchOf(q service.Queries) any { return q.(*Queries).batch }

// ShortIDKeySQL is the short-id indexes' key of a row (id_lookup.go).
const ShortIDKeySQL = shortIDKeySQL

// AccountsRead lists the accounts q's batch has read, each as "app kind ref", sorted.
func AccountsRead(q service.Queries) []string {
	var read []string
	for ref := range q.(*Queries).job.st.netting.refs {
		read = append(read, fmt.Sprintf("%s %s %s", ref.appID, ref.kind, ref.ref))
	}
	slices.Sort(read)
	return read
}

// AppAccounts is the statement that reads the accounts of an app itself (ledger.go).
const AppAccounts = appAccounts

// HeldUnwritten is, for each held table in the order they are written (transfers, postings,
// yearly payments, events, webhook deliveries), how many rows q's batch holds and has not
// written yet.
func HeldUnwritten(q service.Queries) []int {
	h := &q.(*Queries).job.st.held
	return []int{len(h.transfers.unwritten()), len(h.postings.unwritten()), len(h.payments.unwritten()),
		len(h.events.unwritten()), len(h.deliveries.unwritten())}
}

// describeHeld writes the rows r holds, written or not: the kept ones, then the job's.
func describeHeld[T any](b *strings.Builder, name string, r *heldRows[T]) {
	rows := append(slices.Clone(r.kept), r.job...)
	fmt.Fprintf(b, "held %s: %d rows: %+v\n", name, len(rows), rows)
}

// AppsInView lists the apps q's batch view holds, sorted.
func AppsInView(q service.Queries) []string {
	var ids []string
	for id := range q.(*Queries).job.st.reads.apps {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
