package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// check reads everything back through the API after the load: every acknowledged transfer,
// payout and payout link exists exactly once, and every wallet holds what the acknowledged
// movements say, so no money was created or lost and no wallet is negative. It compares
// withdrawable amounts, which pending reservations already reduce, so it holds whether or not
// payouts have settled; it still waits for them, to report whether settlement keeps up.
func check(ctx context.Context, api *client.Client, w *world, r result, cfg config, out io.Writer) error {
	start := time.Now()
	for {
		page, err := api.ListTransfers(ctx, payouts.Page{Limit: 1}, payouts.TransferFilter{Type: payouts.TransferPayout, Status: payouts.TransferPending})
		if err != nil {
			return err
		}
		if len(page.Data) == 0 {
			fmt.Fprintf(out, "settlement: no payout pending %s after the load\n", time.Since(start).Round(100*time.Millisecond))
			break
		}
		if time.Since(start) > cfg.settleWait {
			fmt.Fprintf(out, "settlement: payouts still pending %s after the load\n", cfg.settleWait)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}

	var problems []string
	bad := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	// Every transfer of the app, counted by id.
	seen := map[string]int{}
	failed := map[string]bool{}
	for t, err := range api.AllTransfers(ctx, payouts.TransferFilter{}) {
		if err != nil {
			return err
		}
		seen[t.ID]++
		if t.Status == payouts.TransferFailed {
			failed[t.ID] = true
		}
	}
	for id := range r.transfers {
		if seen[id] != 1 {
			bad("acknowledged transfer %s listed %d times", id, seen[id])
		}
	}
	for id := range r.payouts {
		if seen[id] != 1 {
			bad("acknowledged payout %s listed %d times", id, seen[id])
		}
	}
	expected := len(r.transfers) + len(r.payouts) + len(w.users) + 1 // the funding transfers and the deposit
	if extra := len(seen) - expected; extra < 0 || extra > r.unknown {
		bad("%d transfers listed, %d acknowledged: %d not acknowledged, with %d requests of unknown outcome",
			len(seen), expected, extra, r.unknown)
	}
	linksSeen := map[string]int{}
	var linksHeld int64
	for l, err := range api.AllPayoutLinks(ctx, payouts.PayoutLinkFilter{}) {
		if err != nil {
			return err
		}
		linksSeen[l.ID]++
		if _, ok := r.links[l.ID]; ok {
			linksHeld += r.links[l.ID]
		}
	}
	for id := range r.links {
		if linksSeen[id] != 1 {
			bad("acknowledged payout link %s listed %d times", id, linksSeen[id])
		}
	}

	// What each wallet must hold.
	want := map[string]int64{}
	for _, u := range w.users {
		want[u] = cfg.fund
	}
	app := w.deposited - int64(len(w.users))*cfg.fund - linksHeld
	for id, amount := range r.transfers {
		if user := r.userOf[id]; user != "" {
			want[user] -= amount // negative amounts go from the app to the user
			app += amount
		}
	}
	for id, p := range r.payouts {
		if !failed[id] {
			want[p.user] -= p.amount
			app -= p.fee
		}
	}
	users := 0
	for u, err := range api.AllUsers(ctx, payouts.UserFilter{}) {
		if err != nil {
			return err
		}
		users++
		if u.Wallet.WithdrawableAmount < 0 || u.Wallet.Amount < 0 {
			bad("user %s wallet is negative: %+v", u.ID, u.Wallet)
		}
		if w, ok := want[u.ID]; ok && int64(u.Wallet.WithdrawableAmount) != w {
			bad("user %s can withdraw %d cents, want %d", u.ID, u.Wallet.WithdrawableAmount, w)
		}
	}
	if users != len(w.users) {
		bad("%d users listed, want %d", users, len(w.users))
	}
	a, err := api.GetApp(ctx, cfg.appID)
	if err != nil {
		return err
	}
	if int64(a.Wallet.WithdrawableAmount) != app || a.Wallet.Amount < 0 {
		bad("app can withdraw %d cents (wallet %+v), want %d", a.Wallet.WithdrawableAmount, a.Wallet, app)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(out, "check failed:", p)
		}
		return fmt.Errorf("check failed")
	}
	fmt.Fprintf(out, "check: %d transfers, %d payouts (%d failed on the rail), %d payout links acknowledged, each exists once; "+
		"%d users and the app hold exactly what they should, none negative\n",
		len(r.transfers), len(r.payouts), len(failed), len(r.links), users)
	return nil
}
