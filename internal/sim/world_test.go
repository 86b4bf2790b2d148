package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// world is one seeded run: a service over a SQLite file, a stopped clock, and what the run made.
type world struct {
	ctx    context.Context
	rng    *rand.Rand
	clock  *testclock.Clock
	db     string
	st     *store.Store
	faulty *faultyStore
	svc    *service.Service
	appID  string
	users  []string
	links  []string
	// replays are requests that were answered, with their key and the id they made, to replay.
	replays []replay
	// trace is the steps taken, shown when an invariant breaks.
	trace []string
}

// replay is an answered request: sent again with its key, it must answer id.
type replay struct {
	send func() (string, error)
	id   string
}

// key is the encryption key of the simulated service.
var key = make([]byte, 32)

// open (re)opens the store and makes a fresh Service over it: a crash between steps loses
// everything in memory and keeps only what was committed.
func (w *world) open() error {
	st, err := store.Open(w.ctx, w.db)
	if err != nil {
		return err
	}
	w.st, w.faulty = st, &faultyStore{Store: st}
	cfg := sandbox.Wire(service.Config{EncryptionKey: key}, w.clock, 0, 0)
	w.svc, err = service.New(w.faulty, cfg, w.clock, sandbox.Inbox{Store: w.faulty, Clock: w.clock}, nil)
	return err
}

// crash drops the Service and the store's connections and starts again over the same file.
func (w *world) crash() error {
	w.st.Close()
	return w.open()
}

// amount is a whole number of dollars, or now and then the sandbox's review trigger.
func (w *world) amount(maxDollars int) int64 {
	if w.rng.IntN(12) == 0 {
		return int64(sandbox.TriggerFlagAmount)
	}
	return int64(1+w.rng.IntN(maxDollars)) * 100
}

func (w *world) user() string {
	if len(w.users) == 0 {
		return uuid.NewString() // unknown: a legitimate 404
	}
	return w.users[w.rng.IntN(len(w.users))]
}

// uuidOf draws a key from the run's source, so a seed makes the same requests every time.
func (w *world) uuidOf() string {
	u, _ := uuid.NewRandomFromReader(rngReader{w.rng})
	return u.String()
}

type rngReader struct{ rng *rand.Rand }

func (r rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.rng.Uint32())
	}
	return len(p), nil
}

// ops are the steps the simulation chooses from. An atomic one writes in one transaction, so
// when it fails the ledger must be as it was.
var ops = []struct {
	name   string
	weight int
	atomic bool
	run    func(w *world) error
}{
	{"create user", 2, false, (*world).createUser},
	{"deposit", 3, true, (*world).deposit},
	{"transfer to user", 4, true, func(w *world) error { return w.transfer(-1) }},
	{"transfer to app", 2, true, func(w *world) error { return w.transfer(1) }},
	{"payout", 4, true, (*world).payout},
	{"payout link", 2, true, (*world).payoutLink},
	{"claim", 2, true, (*world).claim},
	{"cancel", 1, true, (*world).cancel},
	{"review", 2, true, (*world).review},
	{"worker tick", 3, false, (*world).tick},
	{"advance clock", 3, false, func(w *world) error {
		w.clock.Advance(time.Duration(w.rng.IntN(10_000)) * time.Millisecond)
		return nil
	}},
	{"replay", 2, true, (*world).replay},
}

func (w *world) createUser() error {
	n := len(w.users)
	u, err := w.svc.CreateUser(w.ctx, w.appID, payouts.CreateUserRequest{FirstName: "User", LastName: fmt.Sprint(n),
		Email: fmt.Sprintf("u%d@example.com", n), CountryCode: "1", PhoneNumber: fmt.Sprintf("4155550%03d", n)})
	if err != nil {
		return err
	}
	w.users = append(w.users, u.ID)
	// Some payees' accounts are refused by the rail at once, some fail when they would settle.
	email := []string{"paid", "paid", "slowfail", "fail"}[w.rng.IntN(4)] + fmt.Sprintf("%d@example.com", n)
	_, err = w.svc.AddPayoutMethod(w.ctx, w.appID, u.ID, payouts.AddPayoutMethodRequest{
		Platform: payouts.PlatformPayPal, Email: email})
	return err
}

// keyed sends a request carrying a fresh key and remembers it to replay when it was answered.
func (w *world) keyed(send func(key string) (string, error)) error {
	k := w.uuidOf()
	id, err := send(k)
	if err == nil {
		w.replays = append(w.replays, replay{send: func() (string, error) { return send(k) }, id: id})
	}
	return err
}

func (w *world) deposit() error {
	return w.keyed(func(k string) (string, error) {
		t, err := w.svc.Deposit(w.ctx, w.appID, w.appID, payouts.DepositRequest{Amount: w.amount(200), IdempotencyKey: k})
		return idOf(t, err)
	})
}

func (w *world) transfer(sign int64) error {
	req := payouts.CreateTransferRequest{UserID: w.user(), Amount: sign * w.amount(50)}
	return w.keyed(func(k string) (string, error) {
		req.IdempotencyKey = k
		t, err := w.svc.CreateTransfer(w.ctx, w.appID, req)
		return idOf(t, err)
	})
}

func (w *world) payout() error {
	req := payouts.CreatePayoutRequest{UserID: w.user(), Amount: w.amount(40), Platform: payouts.PlatformPayPal,
		Fund: w.rng.IntN(3) == 0}
	return w.keyed(func(k string) (string, error) {
		req.IdempotencyKey = k
		t, err := w.svc.CreatePayout(w.ctx, w.appID, req)
		return idOf(t, err)
	})
}

func (w *world) payoutLink() error {
	req := payouts.CreatePayoutLinkRequest{Amount: w.amount(30), UserID: w.user()}
	return w.keyed(func(k string) (string, error) {
		req.IdempotencyKey = k
		l, _, err := w.svc.CreatePayoutLink(w.ctx, w.appID, req)
		if err != nil {
			return "", err
		}
		w.links = append(w.links, l.ID)
		return l.ID, nil
	})
}

func (w *world) link() string {
	if len(w.links) == 0 {
		return uuid.NewString()
	}
	return w.links[w.rng.IntN(len(w.links))]
}

func (w *world) claim() error {
	_, err := w.svc.ClaimPayoutLink(w.ctx, w.link(), w.user())
	return err
}

func (w *world) cancel() error {
	_, err := w.svc.CancelPayoutLink(w.ctx, w.appID, w.link())
	return err
}

// review releases or rejects one flagged payout, if there is one.
func (w *world) review() error {
	list, err := w.svc.ListTransfers(w.ctx, w.appID, payouts.Page{Limit: 10},
		payouts.TransferFilter{Status: payouts.TransferFlagged})
	if err != nil || len(list.Data) == 0 {
		return err
	}
	action := []string{payouts.ReviewRelease, payouts.ReviewReject}[w.rng.IntN(2)]
	_, err = w.svc.ReviewTransfer(w.ctx, w.appID, list.Data[w.rng.IntN(len(list.Data))].ID,
		payouts.ReviewTransferRequest{Action: action})
	return err
}

func (w *world) tick() error {
	if _, err := w.svc.SettleDue(w.ctx, 100); err != nil {
		return err
	}
	_, err := w.svc.DeliverDue(w.ctx, 100)
	return err
}

// replay sends an answered request again: it must answer the same object and do nothing.
func (w *world) replay() error {
	if len(w.replays) == 0 {
		return nil
	}
	r := w.replays[w.rng.IntN(len(w.replays))]
	id, err := r.send()
	if err == nil && id != r.id {
		return fmt.Errorf("%w: replay answered %s, first answer was %s", errBroken, id, r.id)
	}
	return err
}

func idOf(t *payouts.Transfer, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return t.ID, nil
}
