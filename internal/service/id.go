package service

import "github.com/google/uuid"

// newID returns the id of a new record: a UUIDv7, which begins with the time in milliseconds.
// Ids made one after another sort one after another, so a new row's entry in every index keyed by
// its id (the table's own, the postings', the history's and the events' by object) lands on the
// last page of that index, which the whole commit shares. A random id dirtied one page per index
// per row, and each dirty page is a 4 KB write to the log at every commit: measured, the writes
// were 40% of the service's CPU under load. The time it reveals is the record's created time,
// which the API shows anyway.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// newUnguessableID returns a random UUIDv4 (122 random bits) for a record whose id is also its
// address for payees: a payout link's or a flow's hosted page is opened by its id alone, so that
// id must not be guessable from the time it was made, which a UUIDv7 largely is.
func newUnguessableID() string { return uuid.NewString() }
