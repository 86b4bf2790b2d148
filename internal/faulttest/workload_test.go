package faulttest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// Kinds of operation the workload makes.
const (
	opDeposit = "deposit"
	opToUser  = "to_user" // a transfer from the app to a user
	opToApp   = "to_app"  // a transfer from a user to the app
	opPayout  = "payout"
)

// op is one write, with its idempotency key and, once acknowledged, the transfer it made.
type op struct {
	kind   string
	key    string
	userID string
	amount int64
	fund   bool
	id     string
}

// bank is a workload of many clients moving money between one app and its users, and the
// record of what the service acknowledged.
type bank struct {
	t       *testing.T
	creds   payouts.Credentials
	clients []*client.Client // one per process; an operation's attempts go round them
	users   []payouts.User
	// strict makes any error but insufficient funds a failure, instead of retrying it.
	strict bool

	mu         sync.Mutex
	acked      []op
	refused    int // legitimate insufficient-funds answers
	unanswered int // attempts cut off by a kill, retried with the same key
	failures   []string
}

// newBank makes users with a PayPal method each, through the first client. Every fourth user's
// method fails on the rail when the payout would settle, so some payouts end failed.
func newBank(t *testing.T, creds payouts.Credentials, clients []*client.Client, users int) *bank {
	t.Helper()
	ctx := context.Background()
	b := &bank{t: t, creds: creds, clients: clients}
	for i := range users {
		u, err := clients[0].CreateUser(ctx, payouts.CreateUserRequest{FirstName: "User", LastName: fmt.Sprint(i),
			Email: fmt.Sprintf("user%d@example.com", i), CountryCode: "1", PhoneNumber: fmt.Sprintf("41555501%02d", i)})
		if err != nil {
			t.Fatalf("create user %d: %v", i, err)
		}
		email := fmt.Sprintf("paid%d@example.com", i)
		if i%4 == 3 {
			email = fmt.Sprintf("slowfail%d@example.com", i)
		}
		if _, err := clients[0].AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{
			Platform: payouts.PlatformPayPal, Email: email}); err != nil {
			t.Fatalf("add payout method of user %d: %v", i, err)
		}
		b.users = append(b.users, *u)
	}
	return b
}

// send makes one attempt of o through c.
func (b *bank) send(ctx context.Context, c *client.Client, o op) (*payouts.Transfer, error) {
	switch o.kind {
	case opDeposit:
		return c.Deposit(ctx, b.creds.AppID, payouts.DepositRequest{Amount: o.amount, IdempotencyKey: o.key})
	case opToUser:
		return c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: o.userID, Amount: -o.amount, IdempotencyKey: o.key})
	case opToApp:
		return c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: o.userID, Amount: o.amount, IdempotencyKey: o.key})
	default:
		return c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: o.userID, Amount: o.amount,
			Platform: payouts.PlatformPayPal, Fund: o.fund, IdempotencyKey: o.key})
	}
}

// do sends o until it gets an answer: an attempt that got none (the process was killed) is
// retried with the same key, as is a 409 resource-busy. It records the outcome.
func (b *bank) do(ctx context.Context, turn int, o op) {
	for attempt := 0; ; attempt++ {
		c := b.clients[(turn+attempt)%len(b.clients)]
		tr, err := b.send(ctx, c, o)
		var apiErr *payouts.Error
		switch {
		case err == nil:
			o.id = tr.ID
			b.mu.Lock()
			b.acked = append(b.acked, o)
			b.mu.Unlock()
			return
		case errors.As(err, &apiErr) && apiErr.Code == payouts.EInsufficientFunds && apiErr.Status == http.StatusUnprocessableEntity:
			b.mu.Lock()
			b.refused++
			b.mu.Unlock()
			return
		case b.strict || (errors.As(err, &apiErr) && apiErr.Code != payouts.EResourceBusy):
			b.fail("%s %s: %v", o.kind, o.key, err)
			return
		case ctx.Err() != nil:
			b.fail("%s %s: no answer before the deadline: %v", o.kind, o.key, err)
			return
		}
		b.mu.Lock()
		b.unanswered++
		b.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
}

func (b *bank) fail(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures = append(b.failures, fmt.Sprintf(format, args...))
}

// next draws an operation: whole dollars only, so no payout hits the $13.13 review trigger.
func (b *bank) next(rng *rand.Rand, user payouts.User) op {
	o := op{key: uuid.NewString(), userID: user.ID, amount: int64(1+rng.IntN(30)) * 100}
	switch n := rng.IntN(10); {
	case n < 2:
		o.kind, o.userID, o.amount = opDeposit, "", int64(50+rng.IntN(150))*100
	case n < 5:
		o.kind = opToUser
	case n < 7:
		o.kind = opToApp
	default:
		o.kind, o.fund = opPayout, n == 9
	}
	return o
}

// run starts clients goroutines making at least perClient operations each, and more until
// until is closed (a nil until: no more), worker w mostly on user w%len(users) and sometimes on
// any user, and waits for them. A load that must span faults (kills) goes on until they are done,
// however fast the service answers.
func (b *bank) run(ctx context.Context, clients, perClient int, seed uint64, until <-chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	more := func(i int) bool {
		if i < perClient {
			return true
		}
		select {
		case <-until:
			return false
		default:
			return until != nil
		}
	}
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := 0; more(i); i++ {
				user := b.users[w%len(b.users)]
				if rng.IntN(4) == 0 {
					user = b.users[rng.IntN(len(b.users))]
				}
				b.do(ctx, w+i, b.next(rng, user))
			}
		})
	}
	wg.Wait()
	for _, f := range b.failures {
		b.t.Error(f)
	}
}

// report logs the figures of the run.
func (b *bank) report(kills, restarts int) {
	b.t.Logf("acknowledged %d operations, %d refused for insufficient funds, %d attempts unanswered and retried; %d kills under load, %d restarts",
		len(b.acked), b.refused, b.unanswered, kills, restarts)
}
