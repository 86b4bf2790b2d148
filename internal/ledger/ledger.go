// Package ledger is the double-entry core of disburse, as pure logic: accounts with
// TigerBeetle-style balances (posted and pending debits and credits), postings that move an
// amount from one account to another, two-phase postings (pending, then posted or voided), the
// per-account deltas an operation applies, and the invariants a ledger must keep. It does no I/O;
// the service applies the deltas through its store in one transaction.
package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Kind is what an account is for. Every app has one account per kind and ref.
type Kind string

const (
	AppWallet  Kind = "app_wallet"  // the app's money (ref "")
	UserWallet Kind = "user_wallet" // a payee's money (ref = user id)
	Clearing   Kind = "clearing"    // money on its way out on a rail (ref = platform)
	Fees       Kind = "fees"        // fees charged on payouts (ref "")
	Escrow     Kind = "escrow"      // money reserved for open payout links (ref "")
	External   Kind = "external"    // outside the ledger: a funding bank or a rail (ref = source)
)

// NoOverdraft reports whether accounts of kind k must never go below zero. External accounts
// mirror the outside world and run negative by design; the rest are money someone holds.
func (k Kind) NoOverdraft() bool { return k != External }

// Account is a ledger account with its running totals. Credits increase the balance of every
// account; an external account's balance is therefore the negative of what left the world.
type Account struct {
	ID             int64
	AppID          string
	Kind           Kind
	Ref            string
	DebitsPosted   int64
	CreditsPosted  int64
	DebitsPending  int64
	CreditsPending int64
}

// Balance is the posted balance.
func (a Account) Balance() int64 { return a.CreditsPosted - a.DebitsPosted }

// Available is the posted balance less what pending debits reserve.
func (a Account) Available() int64 { return a.CreditsPosted - a.DebitsPosted - a.DebitsPending }

// Apply is the account with d added to its totals.
func (a Account) Apply(d Delta) Account {
	a.DebitsPosted += d.DebitsPosted
	a.CreditsPosted += d.CreditsPosted
	a.DebitsPending += d.DebitsPending
	a.CreditsPending += d.CreditsPending
	return a
}

// Overdraws is the no-overdraft rule: d, added to the account a as it stands, breaks its guard
// when it leaves a's available balance below zero. A preflight and a store's batch decide by it;
// the stores' guarded update states it once more in SQL, where concurrent writers meet.
func (d Delta) Overdraws(a Account) bool { return d.Guard && a.Apply(d).Available() < 0 }

// State is where a posting stands.
type State string

const (
	Pending State = "pending" // reserved: counted in pending totals
	Posted  State = "posted"  // final
	Voided  State = "voided"  // a reservation released; counts nowhere
)

// Posting moves Amount from the Debit account to the Credit account. A transfer is one or more
// postings.
type Posting struct {
	ID         int64
	TransferID string
	Debit      int64 // account the money leaves
	Credit     int64 // account the money enters
	Amount     int64
	State      State
	Type       string // the API's transaction type: balance, refill, payout, fee, ...

	// What the API shows of the line besides the movement itself.
	AppID           string
	UserID          string // the user whose wallet the line touches, if any
	SourceName      string
	DestinationName string
	Metadata        json.RawMessage
	Created         time.Time
	// Posted is when the posting was posted: when it was made, or when its reservation was
	// committed; zero while pending and for a voided one.
	Posted time.Time
	// AppWallet is which way the posting moves the app's wallet: In when it credits it, Out
	// when it debits it, empty when it is between other accounts. It is not stored: the service
	// sets it on the postings it makes and on those it reads (the wallet's account is known).
	AppWallet Direction
}

// Direction is which way a posting moves the app's wallet.
type Direction string

const (
	In  Direction = "in"
	Out Direction = "out"
)

// DirectionOf is which way a posting from debit to credit moves the account wallet.
func DirectionOf(debit, credit, wallet int64) Direction {
	switch {
	case wallet == 0:
	case credit == wallet:
		return In
	case debit == wallet:
		return Out
	}
	return ""
}

// Op is what to do with a posting.
type Op int

const (
	OpPost    Op = iota // a new posting, posted at once
	OpReserve           // a new posting, pending
	OpCommit            // a pending posting becomes posted
	OpVoid              // a pending posting is released
)

// ErrUnbalanced and the other errors below mean a caller built an impossible operation: a bug,
// never bad input.
var (
	ErrNonPositive = errors.New("ledger: posting amount must be positive")
	ErrSameAccount = errors.New("ledger: posting must move money between two accounts")
	ErrBadState    = errors.New("ledger: posting is not in a state that allows this operation")
	ErrBadOp       = errors.New("ledger: unknown operation")
)

// Delta is the change one operation set makes to one account's totals. Guard asks the store to
// refuse the change when it would leave a no-overdraft account's available balance below zero;
// the store checks and writes in one statement, so concurrent writers cannot overdraw.
type Delta struct {
	Account        int64
	DebitsPosted   int64
	CreditsPosted  int64
	DebitsPending  int64
	CreditsPending int64
	Guard          bool
}

// Change pairs an operation with its posting.
type Change struct {
	Op      Op
	Posting *Posting
}

// Plan checks a set of changes and returns the per-account deltas they add up to, ordered by
// account id so that every writer locks accounts in the same order. noOverdraft tells which
// accounts must not go below zero. It also moves each posting to its new state; when it refuses
// the set, every posting keeps the state it had.
func Plan(changes []Change, noOverdraft func(account int64) bool) ([]Delta, error) {
	before := make([]State, len(changes))
	for i, c := range changes {
		before[i] = c.Posting.State
	}
	deltas, err := plan(changes, noOverdraft)
	if err != nil {
		for i, c := range changes {
			c.Posting.State = before[i]
		}
		return nil, err
	}
	return deltas, nil
}

func plan(changes []Change, noOverdraft func(account int64) bool) ([]Delta, error) {
	byAccount := map[int64]*Delta{}
	get := func(id int64) *Delta {
		d, ok := byAccount[id]
		if !ok {
			d = &Delta{Account: id}
			byAccount[id] = d
		}
		return d
	}
	for _, c := range changes {
		p := c.Posting
		if p.Amount <= 0 {
			return nil, fmt.Errorf("%w: %d", ErrNonPositive, p.Amount)
		}
		if p.Debit == p.Credit {
			return nil, ErrSameAccount
		}
		dr, cr := get(p.Debit), get(p.Credit)
		switch c.Op {
		case OpPost:
			dr.DebitsPosted += p.Amount
			cr.CreditsPosted += p.Amount
			p.State = Posted
		case OpReserve:
			dr.DebitsPending += p.Amount
			cr.CreditsPending += p.Amount
			p.State = Pending
		case OpCommit, OpVoid:
			if p.State != Pending {
				return nil, fmt.Errorf("%w: posting %d is %s", ErrBadState, p.ID, p.State)
			}
			dr.DebitsPending -= p.Amount
			cr.CreditsPending -= p.Amount
			if c.Op == OpCommit {
				dr.DebitsPosted += p.Amount
				cr.CreditsPosted += p.Amount
				p.State = Posted
			} else {
				p.State = Voided
			}
		default:
			return nil, fmt.Errorf("%w: %d", ErrBadOp, c.Op)
		}
	}
	out := make([]Delta, 0, len(byAccount))
	for _, d := range byAccount {
		// Only a change that raises what leaves the account can overdraw it.
		d.Guard = noOverdraft(d.Account) && d.DebitsPosted+d.DebitsPending > 0
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Account < out[j].Account })
	return out, nil
}

// Movement is one money movement as a store writes it, all or nothing: the postings it makes,
// the pending postings it settles, and the deltas they add up to (Plan). Only NewMovement makes
// one, so its deltas are always those of its postings.
type Movement struct {
	made, settled []*Posting
	deltas        []Delta
}

// NewMovement plans changes (Plan) into a movement made at the instant at: a posting it posts,
// new or committed, is dated posted at it, the time the store keeps. The new postings are those
// of OpPost and OpReserve, the settled ones those of OpCommit and OpVoid, each in its new state.
func NewMovement(changes []Change, at time.Time, noOverdraft func(account int64) bool) (Movement, error) {
	deltas, err := Plan(changes, noOverdraft)
	if err != nil {
		return Movement{}, err
	}
	m := Movement{deltas: deltas}
	for _, c := range changes {
		if c.Posting.State == Posted {
			c.Posting.Posted = at
		}
		if c.Op == OpPost || c.Op == OpReserve {
			m.made = append(m.made, c.Posting)
		} else {
			m.settled = append(m.settled, c.Posting)
		}
	}
	return m, nil
}

// Made are the new postings, posted or pending, in order; the store sets their ids.
func (m Movement) Made() []*Posting { return m.made }

// Settled are the pending postings the movement commits or voids, in their new state and, when
// committed, with their posted time.
func (m Movement) Settled() []*Posting { return m.settled }

// Deltas are what the movement changes of each account's totals, ordered by account (Plan).
func (m Movement) Deltas() []Delta { return m.deltas }
