package handlers

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

const (
	// maxSearchLength bounds a search: no name, email, phone, id or amount is longer.
	maxSearchLength = 100
	// searchLimit is how many results of each kind a search shows.
	searchLimit = 10
	// searchUsersFollowed is how many of the users found have their transfers and flows shown.
	searchUsersFollowed = 5
	// searchScan is how many of the newest payout links and flows are looked through where the
	// API has no filter for what is searched (a link's amount, a flow's user); the page says so.
	searchScan = payouts.MaxLimit
)

// search finds users, payout links, transfers and flows by id, name, email, phone or amount;
// each kind only for operators whose role may read it. Its htmx answer is the suggestions under
// the header's search field.
func (h *Handlers) search(c *fiber.Ctx) error {
	q := strings.TrimSpace(c.Query("q"))
	p := pages.SearchProps{Query: q, Scanned: searchScan, CanUsers: h.can(c, web.PermUsersRead),
		CanLinks: h.can(c, web.PermLinksRead), CanTransfers: h.can(c, web.PermTransfersRead), CanFlows: h.can(c, web.PermFlowsRead)}
	status := fiber.StatusOK
	switch {
	case q == "":
	case utf8.RuneCountInString(q) > maxSearchLength:
		p.Problem = "That is too long to search for. Search for a name, an email, a phone number, an id or an amount: at most 100 characters."
		status = fiber.StatusUnprocessableEntity
	case payouts.ValidID(q):
		if err := h.findByID(c.UserContext(), q, &p); err != nil {
			return err
		}
	default:
		if err := h.findByText(c.UserContext(), q, &p); err != nil {
			return err
		}
	}
	return h.web.Render(c, status, web.Page{Title: "Search", Content: pages.Search(p), Fragment: pages.SearchSuggestions(p)})
}

// found sorts a lookup's answer: the object, no such object, or a failure of the page.
func found[T any](v *T, err error) (*T, error) {
	if payouts.ErrorCode(err) == payouts.ENotFound {
		return nil, nil
	}
	return v, err
}

// findByID looks the id up as every kind of object the operator may read.
func (h *Handlers) findByID(ctx context.Context, id string, p *pages.SearchProps) error {
	if p.CanUsers {
		u, err := found(h.payouts.GetUser(ctx, id))
		if err != nil {
			return err
		}
		if u != nil {
			p.Users = append(p.Users, *u)
		}
	}
	if p.CanLinks {
		l, err := found(h.payouts.GetPayoutLink(ctx, id))
		if err != nil {
			return err
		}
		if l != nil {
			p.Links = append(p.Links, *l)
		}
	}
	if p.CanTransfers {
		t, err := found(h.payouts.GetTransfer(ctx, id))
		if err != nil {
			return err
		}
		if t != nil {
			p.Transfers = append(p.Transfers, *t)
		}
	}
	if p.CanFlows {
		f, err := found(h.payouts.GetFlow(ctx, id))
		if err != nil {
			return err
		}
		if f != nil {
			p.Flows = append(p.Flows, *f)
		}
	}
	return h.namePeople(ctx, p)
}

// findByText finds users and payout links by name, email or phone, the transfers and flows of
// those users, and payout links of the amount when the text reads as one.
func (h *Handlers) findByText(ctx context.Context, q string, p *pages.SearchProps) error {
	users, err := h.payouts.ListUsers(ctx, payouts.Page{Limit: searchLimit}, payouts.UserFilter{Search: q})
	if err != nil {
		return err
	}
	p.Users = users.Data
	if amount, err := payouts.ParseDollars(q); err == nil && amount > 0 {
		p.Amount = amount
	}
	if p.CanLinks {
		if err := h.findLinks(ctx, q, p); err != nil {
			return err
		}
	}
	followed := p.Users[:min(len(p.Users), searchUsersFollowed)]
	if p.CanTransfers {
		for _, u := range followed {
			ts, err := h.payouts.ListTransfers(ctx, payouts.Page{Limit: searchLimit}, payouts.TransferFilter{UserID: u.ID})
			if err != nil {
				return err
			}
			p.Transfers = append(p.Transfers, ts.Data...)
		}
		p.Transfers = newest(p.Transfers, func(t payouts.Transfer) string { return t.ID },
			func(t payouts.Transfer) int64 { return t.Created.UnixMicro() })
	}
	if p.CanFlows && len(followed) > 0 {
		flows, err := h.payouts.ListFlows(ctx, payouts.Page{Limit: searchScan})
		if err != nil {
			return err
		}
		for _, f := range flows.Data {
			if f.UserID != nil && slices.ContainsFunc(followed, func(u payouts.User) bool { return u.ID == *f.UserID }) {
				p.Flows = append(p.Flows, f)
			}
		}
		p.Flows = p.Flows[:min(len(p.Flows), searchLimit)]
	}
	if !p.CanUsers {
		p.Users = nil // looked up only to find what the operator may read of theirs
	}
	return h.namePeople(ctx, p)
}

// findLinks finds payout links by payee or memo and, when the search is an amount, among the
// newest links those of that amount: the API filters links by text, not by amount.
func (h *Handlers) findLinks(ctx context.Context, q string, p *pages.SearchProps) error {
	links, err := h.payouts.ListPayoutLinks(ctx, payouts.Page{Limit: searchLimit}, payouts.PayoutLinkFilter{Search: q})
	if err != nil {
		return err
	}
	p.Links = links.Data
	if p.Amount > 0 {
		recent, err := h.payouts.ListPayoutLinks(ctx, payouts.Page{Limit: searchScan}, payouts.PayoutLinkFilter{})
		if err != nil {
			return err
		}
		for _, l := range recent.Data {
			if l.Amount == p.Amount {
				p.Links = append(p.Links, l)
			}
		}
	}
	p.Links = newest(p.Links, func(l payouts.PayoutLink) string { return l.ID },
		func(l payouts.PayoutLink) int64 { return l.Created.UnixMicro() })
	return nil
}

// newest is the distinct objects of found, newest first, at most searchLimit of them.
func newest[T any](found []T, id func(T) string, created func(T) int64) []T {
	seen := map[string]bool{}
	out := found[:0:0]
	for _, v := range found {
		if !seen[id(v)] {
			seen[id(v)] = true
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(created(b), created(a)) })
	return out[:min(len(out), searchLimit)]
}

// namePeople looks up the users the results name that are not among the users found.
func (h *Handlers) namePeople(ctx context.Context, p *pages.SearchProps) error {
	p.People = pages.People{}
	for _, u := range p.Users {
		p.People[u.ID] = u
	}
	var missing []*string
	for _, t := range p.Transfers {
		missing = append(missing, t.UserID)
	}
	for _, f := range p.Flows {
		missing = append(missing, f.UserID)
	}
	for _, l := range p.Links {
		missing = append(missing, l.UserID, l.ClaimedUserID)
	}
	missing = slices.DeleteFunc(missing, func(id *string) bool { _, ok := p.People[deref(id)]; return ok })
	more, err := h.peopleOf(ctx, missing...)
	if err != nil {
		return err
	}
	maps.Copy(p.People, more)
	return nil
}
