package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// kinds of operation, in the order they are reported.
var kinds = []string{"transfer", "payout", "link", "read", "list"}

// mix is the weight of each kind of operation.
type mix map[string]int

func parseMix(s string) (mix, error) {
	m := mix{}
	for part := range strings.SplitSeq(s, ",") {
		name, weight, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(weight)
		if !ok || err != nil || n < 0 || !slices.Contains(kinds, name) {
			return nil, fmt.Errorf("-mix %q: want kind=weight,... with kinds %s", s, strings.Join(kinds, ", "))
		}
		m[name] = n
	}
	return m, nil
}

func (m mix) String() string {
	var parts []string
	for _, k := range kinds {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
		}
	}
	return strings.Join(parts, ",")
}

// pick draws a kind by weight.
func (m mix) pick(r *rand.Rand) string {
	total := 0
	for _, w := range m {
		total += w
	}
	n := r.IntN(max(total, 1))
	for _, k := range kinds {
		if n < m[k] {
			return k
		}
		n -= m[k]
	}
	return "read"
}

// world is what setup made: the users, and the oldest transfer to page from at depth.
type world struct {
	users     []string
	deposited int64
	deepAfter string // the first funding transfer: listing after it reads the deepest page
}

// setup funds the app, then creates the users, gives each a PayPal payout method and funds them
// from the app, using every client at once.
func setup(ctx context.Context, api *client.Client, cfg config) (*world, error) {
	w := &world{users: make([]string, cfg.users)}
	w.deposited = int64(cfg.users)*cfg.fund + 1_000_000_000
	if _, err := api.Deposit(ctx, cfg.appID, payouts.DepositRequest{Amount: w.deposited}); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(cfg.clients, 32) {
		wg.Go(func() {
			for i := range next {
				if err := setupUser(ctx, api, w, i, cfg.fund); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range cfg.users {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	page, err := api.ListTransfers(ctx, payouts.Page{Limit: 1}, payouts.TransferFilter{UserID: w.users[0]})
	if err != nil || len(page.Data) == 0 {
		return nil, fmt.Errorf("find the first funding transfer: %v", err)
	}
	w.deepAfter = page.Data[0].ID
	return w, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func setupUser(ctx context.Context, api *client.Client, w *world, i int, fund int64) error {
	u, err := api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Load", LastName: fmt.Sprint(i),
		Email: fmt.Sprintf("load%d@example.com", i), CountryCode: "1", PhoneNumber: fmt.Sprintf("41555%05d", i%100000)})
	if err != nil {
		return err
	}
	w.users[i] = u.ID
	if _, err := api.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: fmt.Sprintf("load%d@example.com", i)}); err != nil {
		return err
	}
	_, err = api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: u.ID, Amount: -fund, TaxExempt: true})
	return err
}

// tally is what one client saw; they are merged at the end.
type tally struct {
	latency map[string][]time.Duration // of successful operations
	errs    map[string]int             // "kind status code"
	unknown int                        // failures whose outcome is unknown (transport errors)
	// The acknowledged money movements, for the final check.
	transfers map[string]int64 // transfer id -> amount (negative: app to user)
	userOf    map[string]string
	payouts   map[string]payoutAck
	links     map[string]int64
}

type payoutAck struct {
	user        string
	amount, fee int64
}

func newTally() *tally {
	return &tally{latency: map[string][]time.Duration{}, errs: map[string]int{}, transfers: map[string]int64{},
		userOf: map[string]string{}, payouts: map[string]payoutAck{}, links: map[string]int64{}}
}

func (t *tally) merge(o *tally) {
	for k, v := range o.latency {
		t.latency[k] = append(t.latency[k], v...)
	}
	for k, v := range o.errs {
		t.errs[k] += v
	}
	t.unknown += o.unknown
	for k, v := range o.transfers {
		t.transfers[k] = v
		t.userOf[k] = o.userOf[k]
	}
	for k, v := range o.payouts {
		t.payouts[k] = v
	}
	for k, v := range o.links {
		t.links[k] = v
	}
}

// result is the merged tally of a run and how long it took.
type result struct {
	*tally
	elapsed time.Duration
	clients int
}

// load runs the clients in a closed loop for the duration. A request under way when the time is
// up is let finish, so every write's outcome is known for the check.
func load(ctx context.Context, api *client.Client, w *world, cfg config) result {
	tallies := make([]*tally, cfg.clients)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(cfg.duration)
	for c := range cfg.clients {
		tallies[c] = newTally()
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), uint64(start.UnixNano())))
			for ctx.Err() == nil && time.Now().Before(deadline) {
				kind := cfg.mix.pick(r)
				began := time.Now()
				if err := do(ctx, api, w, kind, r, tallies[c]); err != nil {
					tallies[c].fail(kind, err)
					continue
				}
				tallies[c].latency[kind] = append(tallies[c].latency[kind], time.Since(began))
			}
		})
	}
	wg.Wait()
	res := result{tally: newTally(), elapsed: time.Since(start), clients: cfg.clients}
	for _, t := range tallies {
		res.merge(t)
	}
	return res
}

func (t *tally) fail(kind string, err error) {
	var apiErr *payouts.Error
	if errors.As(err, &apiErr) && apiErr.Status != 0 {
		t.errs[fmt.Sprintf("%s %d %s", kind, apiErr.Status, apiErr.Code)]++
		return
	}
	t.unknown++
	t.errs[kind+" transport: "+err.Error()]++
}

// do sends one operation of the kind and records what it acknowledged.
func do(ctx context.Context, api *client.Client, w *world, kind string, r *rand.Rand, t *tally) error {
	user := w.users[r.IntN(len(w.users))]
	switch kind {
	case "transfer":
		amount := int64(1)
		if r.IntN(2) == 0 {
			amount = -1
		}
		tr, err := api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: user, Amount: amount, TaxExempt: true})
		if err == nil {
			t.transfers[tr.ID], t.userOf[tr.ID] = amount, user
		}
		return err
	case "payout":
		tr, err := api.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: user, Amount: 1, Platform: payouts.PlatformPayPal,
			PayoutFeeParty: payouts.FeePartyPlatform, TaxExempt: true})
		if err == nil {
			ack := payoutAck{user: user, amount: 1}
			for _, tx := range tr.Transactions {
				if tx.Type == payouts.TransactionFee {
					ack.fee += int64(tx.Amount)
				}
			}
			t.payouts[tr.ID] = ack
		}
		return err
	case "link":
		l, err := api.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 1,
			Payee: &payouts.Payee{FirstName: "Link", Email: "link@example.com"}})
		if err == nil {
			t.links[l.ID] = 1
			if l.TransferID != nil {
				t.transfers[*l.TransferID], t.userOf[*l.TransferID] = 0, "" // the escrow reservation
			}
		}
		return err
	case "read":
		_, err := api.GetUser(ctx, user)
		return err
	default: // list: a page deep in the transfers, behind every one the run made
		_, err := api.ListTransfers(ctx, payouts.Page{Limit: 100, EndingBefore: w.deepAfter}, payouts.TransferFilter{})
		return err
	}
}

// print reports the run.
func (r result) print(out interface{ Write([]byte) (int, error) }, u procUsage, srv *server) {
	var all []time.Duration
	ops := 0
	fmt.Fprintf(out, "\n%-9s %9s %9s %8s %8s %8s\n", "kind", "ok", "ok/s", "p50 ms", "p99 ms", "max ms")
	for _, k := range kinds {
		l := r.latency[k]
		if len(l) == 0 {
			continue
		}
		ops += len(l)
		all = append(all, l...)
		p50, p99, mx := percentiles(l)
		fmt.Fprintf(out, "%-9s %9d %9.0f %8.1f %8.1f %8.1f\n", k, len(l), float64(len(l))/r.elapsed.Seconds(), p50, p99, mx)
	}
	if len(all) > 0 {
		p50, p99, mx := percentiles(all)
		fmt.Fprintf(out, "%-9s %9d %9.0f %8.1f %8.1f %8.1f\n", "all", ops, float64(ops)/r.elapsed.Seconds(), p50, p99, mx)
	}
	rate := r.movementRate()
	fmt.Fprintf(out, "committed money movements: %.0f/s over %s with %d clients\n", rate, r.elapsed.Round(time.Millisecond), r.clients)
	if srv != nil && srv.rawCommits > 0 {
		fmt.Fprintf(out, "ratio to the raw commit rate (%.0f/s): %.2f\n", srv.rawCommits, rate/srv.rawCommits)
	}
	if u.peakRSSKiB > 0 && ops > 0 {
		fmt.Fprintf(out, "server: peak RSS %.1f MB, CPU %.3f ms", float64(u.peakRSSKiB)/1024,
			float64(u.cpu.Microseconds())/1000/float64(ops))
		if u.writes.calls > 0 {
			// Write volume barely depends on machine load, so it compares builds on a busy machine.
			fmt.Fprintf(out, ", writes %.1f KB in %.1f calls", float64(u.writes.bytes)/1024/float64(ops),
				float64(u.writes.calls)/float64(ops))
		}
		fmt.Fprintln(out, " per operation")
	}
	if len(r.errs) == 0 {
		fmt.Fprintln(out, "errors: none")
	}
	for _, k := range slices.Sorted(maps.Keys(r.errs)) {
		fmt.Fprintf(out, "error: %-50s %d\n", k, r.errs[k])
	}
}

// movementRate is the money movements (every kind but reads and lists) acknowledged per second.
func (r result) movementRate() float64 {
	writes := 0
	for k, l := range r.latency {
		if k != "read" && k != "list" {
			writes += len(l)
		}
	}
	return float64(writes) / r.elapsed.Seconds()
}

func percentiles(l []time.Duration) (p50, p99, mx float64) {
	s := slices.Clone(l)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(s[len(s)/2]), ms(s[len(s)*99/100]), ms(s[len(s)-1])
}
