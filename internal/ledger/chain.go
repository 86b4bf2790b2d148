package ledger

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"slices"
	"time"
)

// An app's ledger is a hash chain, as tamper-evident logs are: each posting made and each
// reservation settled is an entry, numbered from 1 per app, whose hash is an HMAC, under a key
// the database does not hold, over the entry's posting as it then stood and the hash of the entry
// before it. Whoever can write the database but does not know the key cannot change, add, remove
// or reorder an entry (or a posting it covers) without CheckChain finding it, except cut the
// newest entries off the end and move the head back to the last one kept: the head is as
// writable as the rest. What a posting carries besides the movement (names, metadata) is not
// covered.

// ChainEntry is one entry of an app's chain: the making of a posting, or (Settles) its
// reservation committed or voided.
type ChainEntry struct {
	Seq       int64
	PostingID int64
	Settles   bool
	Hash      []byte
}

// ChainHead is the last entry of an app's chain; Seq is 0 for a chain with none.
type ChainHead struct {
	Seq  int64
	Hash []byte
}

// ChainHash is the hash of entry seq of p's app's chain, after the entry whose hash is prev: the
// making of p (settles false) or its settlement (true). p is as the entry found it: a posting
// that was later settled was made pending, with no posted time.
func ChainHash(key, prev []byte, seq int64, p Posting, settles bool) []byte {
	mac := hmac.New(sha256.New, key)
	writeBytes(mac, prev)
	writeInt(mac, seq)
	if settles {
		writeInt(mac, 1)
	} else {
		writeInt(mac, 0)
	}
	writeInt(mac, p.ID)
	writeBytes(mac, []byte(p.AppID))
	writeBytes(mac, []byte(p.TransferID))
	writeInt(mac, p.Debit)
	writeInt(mac, p.Credit)
	writeInt(mac, p.Amount)
	writeBytes(mac, []byte(p.State))
	writeBytes(mac, []byte(p.Type))
	writeBytes(mac, []byte(p.UserID))
	writeInt(mac, micros(p.Created))
	writeInt(mac, micros(p.Posted))
	return mac.Sum(nil)
}

// ChainKey is the key an app's chain is hashed under, derived from the service's key.
func ChainKey(serviceKey []byte) []byte {
	mac := hmac.New(sha256.New, serviceKey)
	mac.Write([]byte("disburse ledger chain key"))
	return mac.Sum(nil)
}

// Chainer adds entries to one app's chain, from its head.
type Chainer struct {
	key  []byte
	head ChainHead
}

// NewChainer continues the chain whose last entry is head.
func NewChainer(key []byte, head ChainHead) *Chainer { return &Chainer{key: key, head: head} }

// Add is the next entry: the making of p, or its settlement.
func (c *Chainer) Add(p Posting, settles bool) ChainEntry {
	e := ChainEntry{Seq: c.head.Seq + 1, PostingID: p.ID, Settles: settles}
	e.Hash = ChainHash(c.key, c.head.Hash, e.Seq, p, settles)
	c.head = ChainHead{Seq: e.Seq, Hash: e.Hash}
	return e
}

// Head is the chain's last entry so far.
func (c *Chainer) Head() ChainHead { return c.head }

// writeInt and writeBytes give every field a fixed width or its length first, so no two
// different postings hash the same bytes.
func writeInt(h hash.Hash, v int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	h.Write(b[:])
}

func writeBytes(h hash.Hash, b []byte) {
	writeInt(h, int64(len(b)))
	h.Write(b)
}

// micros is t in microseconds since the epoch as the stores keep it, 0 for the zero time.
func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// CheckChain verifies an app's chain against its postings: the entries are numbered 1, 2, ...
// with none missing and end at the head; each entry's hash is that of its posting as the entry
// found it, after the entry before; every posting was made in the chain once, and settled in it
// once if it is no longer pending and was made pending. A posting changed, moved to another
// account, deleted or added, a settlement changed or added, and entries swapped, removed or
// forged each break it. entries are in any order; one problem is reported once, the chain going
// on from the hash stored.
func CheckChain(key []byte, head ChainHead, entries []ChainEntry, postings []Posting) []error {
	var errs []error
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b ChainEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	byID := make(map[int64]*Posting, len(postings))
	for i := range postings {
		byID[postings[i].ID] = &postings[i]
	}
	made := make(map[int64]int64, len(postings)) // posting id → seq of its making
	settled := make(map[int64]int64)
	var prev []byte
	var last int64
	for _, e := range entries {
		switch {
		case e.Seq == last+2:
			errs = append(errs, fmt.Errorf("chain: entry %d is missing", last+1))
		case e.Seq != last+1:
			errs = append(errs, fmt.Errorf("chain: entries %d to %d are missing", last+1, e.Seq-1))
		}
		last = e.Seq
		p, ok := byID[e.PostingID]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("chain entry %d: posting %d is missing", e.Seq, e.PostingID))
		case e.Settles && settled[p.ID] != 0, !e.Settles && made[p.ID] != 0:
			errs = append(errs, fmt.Errorf("chain entry %d: posting %d %s twice", e.Seq, p.ID, entryVerb(e.Settles)))
		case e.Settles && made[p.ID] == 0:
			errs = append(errs, fmt.Errorf("chain entry %d: posting %d settled before it was made", e.Seq, p.ID))
		default:
			if e.Settles {
				settled[p.ID] = e.Seq
			} else {
				made[p.ID] = e.Seq
			}
		}
		prev = e.Hash
	}
	if head.Seq != last || (last > 0 && !hmac.Equal(head.Hash, prev)) {
		errs = append(errs, fmt.Errorf("chain: the head says entry %d, the chain ends at entry %d", head.Seq, last))
	}
	// Each entry's hash, now that every posting's settlement is known: its making hashes it
	// pending, as it was made, when it was settled later.
	prev = nil
	for _, e := range entries {
		p, ok := byID[e.PostingID]
		if ok && (made[p.ID] == e.Seq || settled[p.ID] == e.Seq) {
			as := *p
			if !e.Settles && settled[p.ID] != 0 {
				as.State, as.Posted = Pending, time.Time{}
			}
			if !hmac.Equal(e.Hash, ChainHash(key, prev, e.Seq, as, e.Settles)) {
				errs = append(errs, fmt.Errorf("chain entry %d: posting %d is not as it was %s (%s of %d from account %d to %d)",
					e.Seq, p.ID, entryVerb(e.Settles), p.State, p.Amount, p.Debit, p.Credit))
			}
		}
		prev = e.Hash
	}
	for _, p := range postings {
		switch {
		case made[p.ID] == 0:
			errs = append(errs, fmt.Errorf("posting %d (%s of %d from account %d to %d) is not in the chain", p.ID, p.State, p.Amount, p.Debit, p.Credit))
		case settled[p.ID] != 0 && p.State == Pending:
			errs = append(errs, fmt.Errorf("posting %d: pending, but its settlement is in the chain (entry %d)", p.ID, settled[p.ID]))
		}
	}
	return errs
}

func entryVerb(settles bool) string {
	if settles {
		return "settled"
	}
	return "made"
}
