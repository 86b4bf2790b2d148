package store

import (
	"context"
	"database/sql"
	"slices"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// shortIDKeySQL is service.ShortIDKey of a row's short id (characters 29 to 36 of its id), written
// exactly as the short-id indexes of migration 0019 are, so that both engines' planners find them.
const shortIDKeySQL = `(substr(id, 36, 1) || substr(id, 35, 1) || substr(id, 34, 1) || substr(id, 33, 1) || substr(id, 32, 1) || substr(id, 31, 1) || substr(id, 29, 2))`

// LookUpIDs finds the ids of the app's users, payout links, transfers and flows whose short id is
// text (when it has a short id's length) or that begin with it (lower-case, as NormalizeIDQuery
// leaves it), at most limit of each, in id order.
//
// The beginning is found as a range on id, which reads each table's unique index on id in both
// engines whatever PostgreSQL's collation (LIKE alone uses an index only under the C collation);
// the LIKE then keeps exactly the ids that begin with text, which holds no wildcard. The app is
// compared as app_id || ” so that no (app_id, ...) index is used: SQLite preferred one and read
// every row of the app (2,000 lookups among 1,000,000 transfers had not finished in 13 minutes)
// where the id range reads a handful. The short id is found by its key (service.ShortIDKey) in the
// (app_id, shortIDKeySQL) index of migration 0019.
func (q *Queries) LookUpIDs(ctx context.Context, appID, text string, limit int) (_ payouts.IDLookup, err error) {
	defer wrap(&err, "look up ids %s", text)
	var out payouts.IDLookup
	for _, kind := range []struct {
		table, also string
		ids         *[]string
	}{
		{"users", " AND deleted_at IS NULL", &out.Users},
		{"payout_links", "", &out.PayoutLinks},
		{"transfers", "", &out.Transfers},
		{"flows", "", &out.Flows},
	} {
		ids, err := q.ids(ctx, `SELECT id FROM `+kind.table+` WHERE app_id || '' = ? AND id >= ? AND id < ? AND id LIKE ?`+
			kind.also+` ORDER BY id LIMIT ?`, appID, text, text+"g", text+"%", limit) // "g" sorts after every hex digit and "-"
		if err != nil {
			return out, err
		}
		if len(text) == payouts.ShortIDLength {
			short, err := q.ids(ctx, `SELECT id FROM `+kind.table+` WHERE app_id = ? AND `+shortIDKeySQL+` = ?`+
				kind.also+` ORDER BY id LIMIT ?`, appID, service.ShortIDKey(text), limit)
			if err != nil {
				return out, err
			}
			ids = append(ids, short...)
			slices.Sort(ids)
			ids = slices.Compact(ids)
			ids = ids[:min(len(ids), limit)]
		}
		*kind.ids = ids
	}
	return out, nil
}

// ids runs a query of one id column and returns its rows, an empty slice when there are none.
func (q *Queries) ids(ctx context.Context, query string, args ...any) ([]string, error) {
	ids := []string{}
	err := q.scanRows(ctx, touchingAll, query, args, func(r *sql.Rows) error {
		var id string
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	return ids, err
}
