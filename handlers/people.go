package handlers

import (
	"context"
	"sync"

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
	distinct := map[string]bool{}
	for _, id := range ids {
		if id != nil && *id != "" {
			distinct[*id] = true
		}
	}
	people := make(pages.People, len(distinct))
	if len(distinct) == 0 {
		return people, nil
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		slots    = make(chan struct{}, peopleLookups)
	)
	for id := range distinct {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			u, err := h.payouts.GetUser(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				people[id] = *u
			case payouts.ErrorCode(err) != payouts.ENotFound && firstErr == nil:
				firstErr = err
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return people, nil
}
