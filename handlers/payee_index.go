package handlers

import (
	"context"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// The public Dots API cannot search users: it lists them newest first. On it the dashboard keeps
// its own index of them (dashstore's payee index), read from that list and kept current: before
// each use it reads the list from the newest user down to the first it has already read, then
// goes on reading older users where it stopped; every user the dashboard reads alone is put in
// it, and one the service no longer has is taken out. The public webhooks would also say when a
// user changes, but the dashboard receives no webhooks. A search of the index is exact once the
// whole list was read; until then a page says how far it got, and a picker refuses to choose.
// On our Payout Service, which searches users itself (payouts.ExtUserFilters), the index is not
// used.

// payeeStore is what the payee index needs of the dashboard's database.
type payeeStore interface {
	PayeeIndexState(ctx context.Context) (dashstore.PayeeIndex, error)
	ListedPayees(ctx context.Context, ids []string) (map[string]bool, error)
	AddNewestPayees(ctx context.Context, users []payouts.User, end bool, now time.Time) error
	AddOlderPayees(ctx context.Context, users []payouts.User, end bool, now time.Time) error
	PutPayee(ctx context.Context, u payouts.User, now time.Time) error
	DeletePayee(ctx context.Context, id string) error
	SearchPayees(ctx context.Context, terms []payouts.SearchTerm, limit int) (dashstore.PayeeMatches, error)
	PayeesByEmail(ctx context.Context, email string) ([]payouts.User, error)
	PayeesByID(ctx context.Context, ids []string) (map[string]payouts.User, error)
}

// olderPayeePages is how many pages of older users one use of the index reads at most, so that
// a page opened on a large account answers while the index is first filled; the background
// keeper (KeepPayeeIndex) reads the rest.
const olderPayeePages = 20

// usesPayeeIndex reports whether the service cannot search users, so the index stands in.
func (h *Handlers) usesPayeeIndex(ctx context.Context) (bool, error) {
	offered, err := h.offers(ctx, payouts.ExtUserFilters)
	return !offered, err
}

// refreshPayees brings the index up to date with the service's list: the users added since the
// last reading, then at most olderPages pages of the older users not read yet.
func (h *Handlers) refreshPayees(ctx context.Context, olderPages int) (dashstore.PayeeIndex, error) {
	h.payeeMu.Lock()
	defer h.payeeMu.Unlock()
	st, err := h.store.PayeeIndexState(ctx)
	if err != nil {
		return st, err
	}
	if err := h.readNewestPayees(ctx, st.Listed); err != nil {
		return st, err
	}
	if st, err = h.store.PayeeIndexState(ctx); err != nil {
		return st, err
	}
	for range olderPages {
		if st.Complete {
			break
		}
		l, err := h.payouts.ListUsers(ctx, payouts.Page{Limit: payouts.MaxLimit, StartingAfter: st.ResumeAfter}, payouts.UserFilter{})
		if err != nil {
			return st, err
		}
		if err := h.store.AddOlderPayees(ctx, l.Data, !l.HasMore || len(l.Data) == 0, h.now()); err != nil {
			return st, err
		}
		if st, err = h.store.PayeeIndexState(ctx); err != nil {
			return st, err
		}
	}
	return st, nil
}

// readNewestPayees reads the list from its newest user down to the first one the index has read
// from it (all of it, should none be left), and puts those above the rest. On an index that has
// read nothing yet it reads the first page only: the older pages follow it.
func (h *Handlers) readNewestPayees(ctx context.Context, listed bool) error {
	var fresh []payouts.User
	after, end := "", false
	for {
		l, err := h.payouts.ListUsers(ctx, payouts.Page{Limit: payouts.MaxLimit, StartingAfter: after}, payouts.UserFilter{})
		if err != nil {
			return err
		}
		known, err := h.store.ListedPayees(ctx, userIDs(l.Data))
		if err != nil {
			return err
		}
		met := false
		for _, u := range l.Data {
			if met = known[u.ID]; met {
				break
			}
			fresh = append(fresh, u)
		}
		if end = !l.HasMore || len(l.Data) == 0; met || end || !listed {
			break
		}
		after = l.Data[len(l.Data)-1].ID
	}
	return h.store.AddNewestPayees(ctx, fresh, end, h.now())
}

// KeepPayeeIndex reads the service's users into the payee index every interval until ctx ends,
// when the service cannot search them: the first filling of a large account goes on here
// between pages.
func (h *Handlers) KeepPayeeIndex(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if use, err := h.usesPayeeIndex(ctx); err == nil && use {
			if _, err := h.refreshPayees(ctx, 10*olderPayeePages); err != nil && ctx.Err() == nil {
				h.log.Warn("payee index: reading the users", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// getUser reads a user from the service and keeps the index's copy current: put when found,
// taken out when the service has no such user.
func (h *Handlers) getUser(ctx context.Context, id string) (*payouts.User, error) {
	u, err := h.payouts.GetUser(ctx, id)
	switch {
	case err == nil:
		h.notePayee(ctx, *u)
	case payouts.ErrorCode(err) == payouts.ENotFound:
		h.forgetPayee(ctx, id)
	}
	return u, err
}

// notePayee puts a user the dashboard read, made or changed in the index, when it is used. A
// failure to write it costs only freshness, so it is logged, not the page's error.
func (h *Handlers) notePayee(ctx context.Context, u payouts.User) {
	if use, err := h.usesPayeeIndex(ctx); err != nil || !use {
		return
	}
	if err := h.store.PutPayee(ctx, u, h.now()); err != nil {
		h.log.Warn("payee index: putting a user", "user", u.ID, "err", err)
	}
}

// forgetPayee takes a user the service no longer has out of the index.
func (h *Handlers) forgetPayee(ctx context.Context, id string) {
	if use, err := h.usesPayeeIndex(ctx); err != nil || !use {
		return
	}
	if err := h.store.DeletePayee(ctx, id); err != nil {
		h.log.Warn("payee index: taking out a user", "user", id, "err", err)
	}
}

// indexedPayees is a search of the index brought up to date first: the first limit users that
// text matches, newest first, how many match in all, and how far the index has read.
func (h *Handlers) indexedPayees(ctx context.Context, text string, limit int) (dashstore.PayeeMatches, dashstore.PayeeIndex, error) {
	st, err := h.refreshPayees(ctx, olderPayeePages)
	if err != nil {
		return dashstore.PayeeMatches{}, st, err
	}
	m, err := h.store.SearchPayees(ctx, payouts.SearchTerms(text), limit)
	return m, st, err
}

// indexNote says what a search of the index looked through and how old it is.
func (h *Handlers) indexNote(st dashstore.PayeeIndex) string {
	age := "read from this API " + components.Relative(st.Synced, h.now())
	if !st.Complete {
		return "Searched the " + components.Count(st.Payees) + " users the dashboard has read so far (" + age +
			"); older users are still being read, so some may be missing (this API cannot search users)."
	}
	return "Searched the dashboard's index of all " + components.Count(st.Payees) + " users, " + age + " (this API cannot search users)."
}

func userIDs(users []payouts.User) []string {
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	return ids
}

// userReader is how a page or an export that names many users reads each one: from the payee
// index when it is used, and from the service for a user the index lacks. An export (whole) has
// the index brought up to date and read at once, in one query, for its one pass; a page reads
// the few users it names from the index as it stands.
func (h *Handlers) userReader(ctx context.Context, whole bool) (func(context.Context, string) (*payouts.User, error), error) {
	use, err := h.usesPayeeIndex(ctx)
	if err != nil || !use {
		return h.payouts.GetUser, err
	}
	lookup := func(ctx context.Context, id string) (payouts.User, bool, error) {
		found, err := h.store.PayeesByID(ctx, []string{id})
		u, ok := found[id]
		return u, ok, err
	}
	if whole {
		st, err := h.refreshPayees(ctx, olderPayeePages)
		if err != nil {
			return nil, err
		}
		all, err := h.store.SearchPayees(ctx, nil, st.Payees)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]payouts.User, len(all.Users))
		for _, u := range all.Users {
			byID[u.ID] = u
		}
		lookup = func(_ context.Context, id string) (payouts.User, bool, error) {
			u, ok := byID[id]
			return u, ok, nil
		}
	}
	return func(ctx context.Context, id string) (*payouts.User, error) {
		u, ok, err := lookup(ctx, id)
		if err != nil {
			return nil, err
		}
		if ok {
			return &u, nil
		}
		return h.getUser(ctx, id)
	}, nil
}
