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
)

// search finds users, payout links, transfers and flows by id, name, email, phone or amount;
// each kind only for operators whose role may read it. Its htmx answer is the suggestions under
// the header's search field.
func (h *Handlers) search(c *fiber.Ctx) error {
	q := strings.TrimSpace(c.Query("q"))
	p := pages.SearchProps{Query: q, CanUsers: h.can(c, web.PermUsersRead),
		CanLinks: h.can(c, web.PermLinksRead), CanTransfers: h.can(c, web.PermTransfersRead), CanFlows: h.can(c, web.PermFlowsRead)}
	status := fiber.StatusOK
	switch {
	case q == "":
	case utf8.RuneCountInString(q) > maxSearchLength:
		p.Problem = "That is too long to search for. Search for a name, an email, a phone number, an id or an amount: at most 100 characters."
		status = fiber.StatusUnprocessableEntity
	default:
		if err := h.find(c.UserContext(), q, &p); err != nil {
			return err
		}
		h.maskClaimURLs(c, p.Links)
	}
	return h.web.Render(c, status, web.Page{Title: "Search", Content: pages.Search(h.web.View(c), p), Fragment: pages.SearchSuggestions(p)})
}

// find runs a search: as a short id or the beginning of an id when it can be one (8 or more hex
// digits, which a phone number can be too), and as text unless it is a whole id.
func (h *Handlers) find(ctx context.Context, q string, p *pages.SearchProps) error {
	if id, err := payouts.NormalizeIDQuery(q); err == nil {
		if err := h.findByID(ctx, id, p); err != nil {
			return err
		}
	}
	if !payouts.ValidID(q) {
		if err := h.findByText(ctx, q, p); err != nil {
			return err
		}
	}
	return h.namePeople(ctx, p)
}

// findByID finds the objects of every kind the operator may read whose short id is text or whose
// ids begin with it.
func (h *Handlers) findByID(ctx context.Context, text string, p *pages.SearchProps) error {
	found, err := h.lookUpIDs(ctx, text, p)
	if err != nil {
		return err
	}
	if p.CanUsers {
		if p.Users, err = fetch(ctx, found.Users, p.Users, h.payouts.GetUser); err != nil {
			return err
		}
	}
	if p.CanLinks {
		if p.Links, err = fetch(ctx, found.PayoutLinks, p.Links, h.payouts.GetPayoutLink); err != nil {
			return err
		}
	}
	if p.CanTransfers {
		if p.Transfers, err = fetch(ctx, found.Transfers, p.Transfers, h.payouts.GetTransfer); err != nil {
			return err
		}
	}
	if p.CanFlows {
		if p.Flows, err = fetch(ctx, found.Flows, p.Flows, h.payouts.GetFlow); err != nil {
			return err
		}
	}
	return nil
}

// fetch appends the objects of ids to into; one gone since the lookup is left out.
func fetch[T any](ctx context.Context, ids []string, into []T, get func(context.Context, string) (*T, error)) ([]T, error) {
	for _, id := range ids {
		v, err := get(ctx, id)
		switch {
		case payouts.ErrorCode(err) == payouts.ENotFound:
		case err != nil:
			return nil, err
		default:
			into = append(into, *v)
		}
	}
	return into, nil
}

// ofEach appends to into the first page list gives for each of users.
func ofEach[T any](ctx context.Context, users []payouts.User, into []T,
	list func(ctx context.Context, userID string) (*payouts.List[T], error)) ([]T, error) {
	for _, u := range users {
		page, err := list(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		into = append(into, page.Data...)
	}
	return into, nil
}

// findByText finds users and payout links by name, email or phone, the transfers and flows of
// those users, and the transfers and payout links of the amount when the text reads as one.
func (h *Handlers) findByText(ctx context.Context, q string, p *pages.SearchProps) error {
	users, note, err := h.findUsers(ctx, payouts.Page{Limit: searchLimit}, payouts.UserFilter{Search: q})
	if err != nil {
		return err
	}
	p.AddNote(note)
	p.Users = exactFirst(newest(append(p.Users, users.Data...), func(u payouts.User) string { return u.ID },
		func(u payouts.User) int64 { return u.Created.UnixMicro() }), q)
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
		if p.Amount > 0 {
			ofAmount, note, err := h.findTransfers(ctx, payouts.Page{Limit: searchLimit},
				payouts.TransferFilter{Range: payouts.Range{AmountMin: p.Amount, AmountMax: p.Amount}})
			if err != nil {
				return err
			}
			p.AddNote(note)
			p.Transfers = append(p.Transfers, ofAmount.Data...)
		}
		p.Transfers, err = ofEach(ctx, followed, p.Transfers, func(ctx context.Context, userID string) (*payouts.List[payouts.Transfer], error) {
			return h.payouts.ListTransfers(ctx, payouts.Page{Limit: searchLimit}, payouts.TransferFilter{UserID: userID})
		})
		if err != nil {
			return err
		}
		p.Transfers = newest(p.Transfers, func(t payouts.Transfer) string { return t.ID },
			func(t payouts.Transfer) int64 { return t.Created.UnixMicro() })
	}
	if p.CanFlows {
		p.Flows, err = ofEach(ctx, followed, p.Flows, func(ctx context.Context, userID string) (*payouts.List[payouts.Flow], error) {
			flows, note, err := h.findFlows(ctx, payouts.Page{Limit: searchLimit}, payouts.FlowFilter{UserID: userID})
			p.AddNote(note)
			return flows, err
		})
		if err != nil {
			return err
		}
		p.Flows = newest(p.Flows, func(f payouts.Flow) string { return f.ID },
			func(f payouts.Flow) int64 { return f.Created.UnixMicro() })
	}
	if !p.CanUsers {
		p.Users = nil // looked up only to find what the operator may read of theirs
	}
	return nil
}

// findLinks finds payout links by payee or memo and, when the search is an amount, those of
// that amount.
func (h *Handlers) findLinks(ctx context.Context, q string, p *pages.SearchProps) error {
	links, note, err := h.findPayoutLinks(ctx, payouts.Page{Limit: searchLimit}, payouts.PayoutLinkFilter{Search: q})
	if err != nil {
		return err
	}
	p.AddNote(note)
	p.Links = append(p.Links, links.Data...)
	if p.Amount > 0 {
		ofAmount, note, err := h.findPayoutLinks(ctx, payouts.Page{Limit: searchLimit}, payouts.PayoutLinkFilter{Amount: p.Amount})
		if err != nil {
			return err
		}
		p.AddNote(note)
		p.Links = append(p.Links, ofAmount.Data...)
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

// exactFirst moves the users whose whole name or email is q, in any case, before the others,
// each side keeping its order: the few the header suggests then hold the one typed in full,
// however many newer users' names merely contain it.
func exactFirst(users []payouts.User, q string) []payouts.User {
	exact := func(u payouts.User) bool {
		return strings.EqualFold(strings.TrimSpace(u.FirstName+" "+u.LastName), q) || strings.EqualFold(u.Email, q)
	}
	slices.SortStableFunc(users, func(a, b payouts.User) int {
		switch ea, eb := exact(a), exact(b); {
		case ea && !eb:
			return -1
		case eb && !ea:
			return 1
		}
		return 0
	})
	return users
}
