package store

import (
	"slices"

	"github.com/disburse/disburse/internal/service"
)

// UsersReadAhead returns the ids of the users q's batch holds read ahead, sorted.
func UsersReadAhead(q service.Queries) []string {
	r := q.(txQueries).batchReads()
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

// KeysClaimedAhead returns the idempotency keys q's batch claimed ahead that no job took yet,
// sorted.
func KeysClaimedAhead(q service.Queries) []string {
	qq := q.(txQueries)
	if qq.batch == nil || qq.batchState().keys == nil {
		return nil
	}
	var keys []string
	for ref := range qq.batchState().keys.claimed {
		keys = append(keys, ref.key)
	}
	slices.Sort(keys)
	return keys
}
