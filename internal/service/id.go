package service

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

// newID returns the id of a new record: a UUIDv7, which begins with the time in milliseconds.
// Ids made one after another sort one after another, so a new row's entry in every index keyed by
// its id (the table's own, the postings', the history's and the events' by object) lands on the
// last page of that index, which the whole commit shares. A random id dirtied one page per index
// per row, and each dirty page is a 4 KB write to the log at every commit: measured, the writes
// were 40% of the service's CPU under load. The time it reveals is the record's created time,
// which the API shows anyway.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// TransferIDs makes the ids of new transfers. Its zero value is ready; the service keeps one.
type TransferIDs struct {
	counts sync.Map // app id to *atomic.Uint32
}

// New returns the id of a new transfer of the app: a UUIDv7 (newID) whose short id (its last 8
// hexadecimal digits, which lists show: payouts.ShortID) is two random digits and then the six of
// a count of the app's transfers, lowest digit first. Transfers made one after another so differ
// in their short ids' third digit, after two random ones, where an operator reads them, while
// their ShortIDKeys count up: the transfers' short-id index, keyed by it, takes each new transfer
// on the page the last one went to, as the id's own index does, where a random short id dirtied a
// page of its own in every commit. The count is the app's own, started at random, so a
// transfer's id tells those who see it nothing about other apps, and no more about their own than
// how many transfers it made between two they were shown.
func (t *TransferIDs) New(appID string) string {
	id := uuid.Must(uuid.NewV7())
	n := t.count(appID).Add(1)
	id[13] = byte(n&0xf)<<4 | byte(n>>4&0xf)
	id[14] = byte(n>>8&0xf)<<4 | byte(n>>12&0xf)
	id[15] = byte(n>>16&0xf)<<4 | byte(n>>20&0xf)
	return id.String()
}

// count is the app's count. It starts at random, so that two processes, or one restarted, give
// their transfers different short ids, and below 2^23, so that its six digits wrap only after 8
// million transfers of one process.
func (t *TransferIDs) count(appID string) *atomic.Uint32 {
	if n, ok := t.counts.Load(appID); ok {
		return n.(*atomic.Uint32)
	}
	start := new(atomic.Uint32)
	start.Store(rand.Uint32N(1 << 23))
	n, _ := t.counts.LoadOrStore(appID, start)
	return n.(*atomic.Uint32)
}

// ShortIDKey is the key of a short id (8 hexadecimal digits) in the short-id indexes (store
// migration 0019): its last six digits in reverse order, then its first two. For the ids
// TransferIDs makes one after another for an app, it is the count's six digits, highest first,
// and so increases. It is defined for any short id, random ones included (those of other records,
// of unguessable ids, of transfers made before the count): the index finds them all the same.
func ShortIDKey(short string) string {
	if len(short) != 8 {
		return short
	}
	return string([]byte{short[7], short[6], short[5], short[4], short[3], short[2], short[0], short[1]})
}

// newUnguessableID returns a random UUIDv4 (122 random bits) for a record whose id is also its
// address for payees: a payout link's or a flow's hosted page is opened by its id alone, so that
// id must not be guessable from the time it was made, which a UUIDv7 largely is.
func newUnguessableID() string { return uuid.NewString() }
