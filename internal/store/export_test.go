package store

import (
	"slices"

	"github.com/disburse/disburse/internal/service"
)

// UsersReadAhead returns the ids of the users q's batch holds read ahead, sorted.
func UsersReadAhead(q service.Queries) []string {
	r := q.(*Queries).batchReads()
	if r == nil {
		return nil
	}
	ids := make([]string, 0, len(r.users))
	for id := range r.users {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
