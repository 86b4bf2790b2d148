package service

import (
	"context"
	"errors"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// book is the one ledger decision path: every money movement of the service, and every
// preflight of one, goes through a book. It resolves accounts, names them for the transaction
// lines, builds each movement with the no-overdraft guard and hands it to its ledger: the open
// transaction's plan (planLedger), or a preflight's memory (dryLedger), which books it writing
// nothing.
type book struct {
	led     ledgerState
	reads   Reads // the transaction, or what a preflight reads through
	appID   string
	appName string
	now     func() payouts.Time
	kinds   map[int64]ledger.Kind
	wallet  *party // the app's wallet once resolved: it is made with the app, so no rollback undoes it
	// users are the users read (and, on PostgreSQL, locked) through this book, so that a batch
	// reads each of its users once.
	users map[string]*UserRecord
}

// planBook is a book of the app appID that books into q's plan (planLedger).
func (s *Service) planBook(ctx context.Context, q *Tx, appID string) (*book, error) {
	return s.bookOn(ctx, q, planLedger{q}, appID)
}

// bookOn is a book of the app appID reading through r and booking into led.
func (s *Service) bookOn(ctx context.Context, r Reads, led ledgerState, appID string) (*book, error) {
	app, err := r.GetApp(ctx, appID)
	if err != nil {
		return nil, orNotFound(err, "app")
	}
	return &book{led: led, reads: r, appID: appID, appName: app.Name, kinds: map[int64]ledger.Kind{}, users: map[string]*UserRecord{},
		now: func() payouts.Time { return payouts.NewTime(s.now()) }}, nil
}

// ledgerState is where a book's movements land. The rules that decide them are the book's, the
// same for a request and its preflight; only what booking does differs.
type ledgerState interface {
	// account is the id of the app's account of kind and ref, made when a request first needs it.
	account(ctx context.Context, appID string, kind ledger.Kind, ref string) (int64, error)
	// post books m, or refuses all of it with ErrOverdraft.
	post(ctx context.Context, m ledger.Movement) error
	// addPayment adds amount to the user's payments of year (the 1099 total) and returns it.
	addPayment(ctx context.Context, u *UserRecord, year int, amount payouts.Money) (payouts.Money, error)
	// userChanged keeps u, changed by the book's rules from before.
	userChanged(ctx context.Context, before payouts.User, u *UserRecord) error
}

// dryLedger is a preflight's ledger: it reads accounts and never makes one (one not yet made
// holds nothing), and books a movement on the balances it holds, by the rule the store's guard
// checks (ledger.Delta.Overdraws), so a run's later requests see what the earlier ones spent. It
// adds up payments towards the 1099 threshold the same way, and keeps users changed in memory
// alone (the book's users).
type dryLedger struct {
	reads    Reads
	ids      map[string]int64 // by kind and ref
	accounts map[int64]ledger.Account
	yearly   map[string]payouts.Money // by user id
	unmade   int64                    // the last id given to an account not yet made: -1, -2, ...
}

func newDryLedger(r Reads) *dryLedger {
	return &dryLedger{reads: r, ids: map[string]int64{}, accounts: map[int64]ledger.Account{}, yearly: map[string]payouts.Money{}}
}

func (d *dryLedger) account(ctx context.Context, appID string, kind ledger.Kind, ref string) (int64, error) {
	key := string(kind) + "/" + ref
	if id, ok := d.ids[key]; ok {
		return id, nil
	}
	a, err := d.reads.FindAccount(ctx, appID, kind, ref)
	switch {
	case errors.Is(err, ErrNoRecord):
		d.unmade--
		a = &ledger.Account{ID: d.unmade}
	case err != nil:
		return 0, err
	}
	d.ids[key], d.accounts[a.ID] = a.ID, *a
	return a.ID, nil
}

func (d *dryLedger) post(_ context.Context, m ledger.Movement) error {
	deltas := m.Deltas()
	for _, dl := range deltas {
		if dl.Overdraws(d.accounts[dl.Account]) {
			return ErrOverdraft
		}
	}
	for _, dl := range deltas {
		d.accounts[dl.Account] = d.accounts[dl.Account].Apply(dl)
	}
	return nil
}

func (d *dryLedger) addPayment(ctx context.Context, u *UserRecord, year int, amount payouts.Money) (payouts.Money, error) {
	total, ok := d.yearly[u.ID]
	if !ok {
		var err error
		if total, err = d.reads.YearlyPayments(ctx, u.AppID, u.ID, year); err != nil {
			return 0, err
		}
	}
	total += amount
	d.yearly[u.ID] = total
	return total, nil
}

func (d *dryLedger) userChanged(context.Context, payouts.User, *UserRecord) error { return nil }

// appBook is s.planBook with the app's wallet resolved, the side most movements start or end at.
func (s *Service) appBook(ctx context.Context, q *Tx, appID string) (*book, party, error) {
	b, err := s.planBook(ctx, q, appID)
	if err != nil {
		return nil, party{}, err
	}
	app, err := b.app(ctx)
	return b, app, err
}

// bookUser reads a user of the book's app once per book.
func (s *Service) bookUser(ctx context.Context, q Reads, b *book, id string) (*UserRecord, error) {
	if u, ok := b.users[id]; ok {
		return u, nil
	}
	u, err := s.getUser(ctx, q, b.appID, id)
	if err == nil {
		b.users[id] = u
	}
	return u, err
}

// party is one side of a posting: an account and how the transaction line names it.
type party struct {
	account int64
	name    string
	userID  string
}

func (b *book) account(ctx context.Context, kind ledger.Kind, ref, name, userID string) (party, error) {
	id, err := b.led.account(ctx, b.appID, kind, ref)
	if err != nil {
		return party{}, err
	}
	b.kinds[id] = kind
	return party{account: id, name: name, userID: userID}, nil
}

func (b *book) app(ctx context.Context) (party, error) {
	if b.wallet != nil {
		return *b.wallet, nil
	}
	p, err := b.account(ctx, ledger.AppWallet, "", b.appName, "")
	if err == nil {
		b.wallet = &p
	}
	return p, err
}

func (b *book) user(ctx context.Context, u *payouts.User) (party, error) {
	return b.account(ctx, ledger.UserWallet, u.ID, u.Name(), u.ID)
}

// appAndUser resolves the two wallets of a movement between the app and a user.
func (b *book) appAndUser(ctx context.Context, u *payouts.User) (app, wallet party, err error) {
	if app, err = b.app(ctx); err != nil {
		return party{}, party{}, err
	}
	wallet, err = b.user(ctx, u)
	return app, wallet, err
}

func (b *book) bank(ctx context.Context) (party, error) {
	return b.account(ctx, ledger.External, "bank", "Bank", "")
}

func (b *book) clearing(ctx context.Context, p payouts.Platform) (party, error) {
	return b.account(ctx, ledger.Clearing, string(p), p.Label(), "")
}

func (b *book) fees(ctx context.Context) (party, error) {
	return b.account(ctx, ledger.Fees, "", "Fees", "")
}

func (b *book) escrow(ctx context.Context) (party, error) {
	return b.account(ctx, ledger.Escrow, "", "Payout link escrow", "")
}

// line is a new posting to make.
type line struct {
	from, to party
	amount   payouts.Money
	typ      payouts.TransactionType
	pending  bool
	metadata payouts.Metadata
}

// insufficientFunds is what a movement that would overdraw a wallet answers.
func insufficientFunds() *payouts.Error {
	return payouts.Errorf(payouts.EInsufficientFunds, "Insufficient funds for this transfer.")
}

// move writes the lines of transferID and settles the given pending postings (commit or void) as
// one movement, guarded against overdraft, and returns the new postings.
func (b *book) move(ctx context.Context, transferID string, lines []line, settle []ledger.Change) ([]ledger.Posting, error) {
	recs, changes := b.lines(transferID, lines)
	// Settling a pending posting never raises what leaves an account, so only the new lines'
	// accounts, which the book resolved, can need the overdraft guard.
	return recs, b.post(ctx, append(changes, settle...))
}

// lines makes the new postings of transferID, and the changes that post or reserve them.
func (b *book) lines(transferID string, lines []line) ([]ledger.Posting, []ledger.Change) {
	now := b.now().Time
	recs := make([]ledger.Posting, len(lines))
	changes := make([]ledger.Change, 0, len(lines))
	for i, l := range lines {
		userID := l.from.userID
		if userID == "" {
			userID = l.to.userID
		}
		recs[i] = ledger.Posting{TransferID: transferID, Debit: l.from.account, Credit: l.to.account,
			Amount: int64(l.amount), Type: string(l.typ),
			AppID: b.appID, UserID: userID, SourceName: l.from.name, DestinationName: l.to.name,
			Metadata: l.metadata, Created: now,
			AppWallet: bookDirection(b.kinds[l.from.account], b.kinds[l.to.account]),
		}
		op := ledger.OpPost
		if l.pending {
			op = ledger.OpReserve
		}
		changes = append(changes, ledger.Change{Op: op, Posting: &recs[i]})
	}
	return recs, changes
}

// post books changes as one movement in b's ledger, each account guarded against overdraft by
// its kind as b or one of others (the books of other apps whose accounts the changes name)
// resolved it.
func (b *book) post(ctx context.Context, changes []ledger.Change, others ...*book) error {
	noOverdraft := func(id int64) bool {
		for _, o := range others {
			if kind, ok := o.kinds[id]; ok {
				return kind.NoOverdraft()
			}
		}
		return b.kinds[id].NoOverdraft()
	}
	m, err := ledger.NewMovement(changes, b.now().Time, noOverdraft)
	if err != nil {
		return err
	}
	if err := b.led.post(ctx, m); err != nil {
		if errors.Is(err, ErrOverdraft) {
			return insufficientFunds()
		}
		return err
	}
	return nil
}

// CheckLedger verifies the invariants of an app's or an organization's ledger: every account's
// totals match its postings, balances sum to zero, no wallet is below zero, the app's chain holds
// every posting as it was made and settled (ledger.CheckChain), every transfer's amount and
// status are what its postings book (checkTransfers), and an organization's transfers with each
// app left both ledgers agreeing. A broken invariant is a *LedgerViolation;
// any other error is a failure to read the ledger. Tests call it after every scenario, payoutd
// check and the periodic check through CheckAllLedgers.
func (s *Service) CheckLedger(ctx context.Context, appID string) error {
	a, err := s.store.LedgerAudit(ctx, appID)
	if err != nil {
		return err
	}
	errs := append(ledger.Check(a.Accounts, a.Postings), a.Chain...)
	if errs = append(errs, checkTransfers(a)...); len(errs) > 0 {
		v := &LedgerViolation{AppID: appID, Problems: make([]string, len(errs))}
		for i, e := range errs {
			v.Problems[i] = e.Error()
		}
		return v
	}
	return s.checkOrganizationMirrors(ctx, appID)
}

// bookDirection is which way a line between accounts of these kinds moves the book's app wallet
// (the only wallet of its kind a book holds).
func bookDirection(from, to ledger.Kind) ledger.Direction {
	switch {
	case to == ledger.AppWallet:
		return ledger.In
	case from == ledger.AppWallet:
		return ledger.Out
	}
	return ""
}

// withAppWallet sets on postings read back which way each moves the app's wallet.
func withAppWallet(ctx context.Context, q Reads, appID string, postings []ledger.Posting) error {
	wallet, err := q.AppWalletID(ctx, appID)
	if err != nil {
		return err
	}
	for i := range postings {
		postings[i].AppWallet = ledger.DirectionOf(postings[i].Debit, postings[i].Credit, wallet)
	}
	return nil
}

// transactionOf turns a posting into the API's transaction.
func transactionOf(p ledger.Posting) payouts.Transaction {
	t := payouts.Transaction{
		ID: p.ID, Amount: payouts.Money(p.Amount), Created: payouts.NewTime(p.Created),
		SourceName: p.SourceName, DestinationName: p.DestinationName,
		Type: payouts.TransactionType(p.Type), TransferID: p.TransferID, Metadata: p.Metadata,
		Status: string(p.State), Direction: string(p.AppWallet),
	}
	if p.UserID != "" {
		id := p.UserID
		t.UserID = &id
	}
	if p.State == ledger.Posted && !p.Posted.IsZero() {
		posted := payouts.NewTime(p.Posted)
		t.Posted = &posted
	}
	return t
}
