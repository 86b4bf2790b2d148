package store

import (
	"context"
	"strconv"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/sqldb"
)

// Statement reads the balance of the app's account as of from (the lines posted before it) and
// the lines posted to it in [from, to), oldest first, at most limit of them. One statement reads
// both, so the opening and the lines are of the same moment of the ledger. Each side of a line is
// read by its own index (postings_debit_posted, postings_credit_posted): a line never has the
// same account on both sides.
func (q *Queries) Statement(ctx context.Context, appID string, account int64, from, to time.Time, limit int) (_ int64, _ []ledger.Posting, err error) {
	defer wrap(&err, "statement of account %d", account)
	lo, hi := sqldb.Micros(from), sqldb.Micros(to)
	// The opening is a row of the same shape as a line, first in the order (posted -1): id 0,
	// its amount the balance.
	rows, err := q.query(ctx, `SELECT * FROM (
		SELECT 0 AS id, '' AS app_id, '' AS transfer_id, 0 AS debit_account, 0 AS credit_account,
			CAST((SELECT COALESCE(SUM(amount), 0) FROM postings WHERE credit_account = ? AND posted < ?) -
			(SELECT COALESCE(SUM(amount), 0) FROM postings WHERE debit_account = ? AND posted < ?) AS BIGINT) AS amount,
			'' AS state, '' AS type, NULL AS user_id, '' AS source_name, '' AS destination_name, NULL AS metadata,
			0 AS created, -1 AS posted
		UNION ALL
		SELECT `+postingColumns+` FROM postings WHERE debit_account = ? AND posted >= ? AND posted < ? AND app_id = ?
		UNION ALL
		SELECT `+postingColumns+` FROM postings WHERE credit_account = ? AND posted >= ? AND posted < ? AND app_id = ?
	) AS statement ORDER BY posted, id LIMIT `+strconv.Itoa(limit+2),
		account, lo, account, lo, account, lo, hi, appID, account, lo, hi, appID)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var opening int64
	var lines []ledger.Posting
	for first := true; rows.Next(); first = false {
		p, err := scanPosting(rows)
		if err != nil {
			return 0, nil, err
		}
		if first {
			opening = p.Amount
			continue
		}
		lines = append(lines, p)
	}
	return opening, lines, rows.Err()
}
