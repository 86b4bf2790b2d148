package handlers

import (
	"context"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
)

// peopleLookups bounds the user lookups a page runs at once: a list page names up to its rows'
// users, and the service should not see a burst of one request per row.
const peopleLookups = 8

// peopleOf looks up the users a page names, so it shows a name and email instead of an id: one
// call per distinct id, so at most one per id given (a list passes its page's rows, never more).
// Empty and nil ids are skipped. A user the service does not know (deleted, or an id of another
// app) is left out and the page shows the short id; any other failure is the page's error.
func (h *Handlers) peopleOf(ctx context.Context, ids ...*string) (pages.People, error) {
	var distinct []string
	seen := map[string]bool{}
	for _, id := range ids {
		if id != nil && *id != "" && !seen[*id] {
			seen[*id] = true
			distinct = append(distinct, *id)
		}
	}
	read, err := h.userReader(ctx, false)
	if err != nil {
		return nil, err
	}
	found, errs := make([]*payouts.User, len(distinct)), make([]error, len(distinct))
	inParallel(peopleLookups, len(distinct), func(i int) { found[i], errs[i] = read(ctx, distinct[i]) })
	people := make(pages.People, len(distinct))
	for i, id := range distinct {
		switch {
		case errs[i] == nil:
			people[id] = *found[i]
		case payouts.ErrorCode(errs[i]) != payouts.ENotFound:
			return nil, errs[i]
		}
	}
	return people, nil
}
