package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// The summary of a large set is estimated from a sample so that it costs the same at any size:
// up to summarySample rows, the newest of the creation range, are read and summed; a range of no
// more rows is summed exactly.
const summarySample = 10_000

// SummarizeTransfers counts the app's transfers that f matches and sums what their posted lines
// moved into and out of the app's wallet (the definition of Service.Statement): a deposit and
// money a user sends back are in; money moved to a user, a funded payout's funding and a fee the
// app pays are out, once each; a payout from a user's own wallet moves none of the app's money;
// a voided reservation counts nowhere.
func (q *Queries) SummarizeTransfers(ctx context.Context, appID string, f payouts.TransferFilter) (_ payouts.Summary, err error) {
	defer wrap(&err, "summarize transfers")
	wallet, err := q.appWalletID(ctx, appID)
	if err != nil {
		return payouts.Summary{}, err
	}
	var scope, match listQuery
	scope.scope(appID, f.Range)
	transferMatch(&match, f)
	// Each transfer's lines are found by the (app_id, transfer_id, id) index.
	walletSum := func(side string) string {
		return `(SELECT COALESCE(SUM(p.amount), 0) FROM postings p WHERE p.app_id = transfers.app_id
			AND p.transfer_id = transfers.id AND p.state = 'posted' AND p.` + side + ` = ` + wallet + `)`
	}
	return q.summarize(ctx, summaryQuery{table: "transfers", columns: "user_id, type, status, amount, created, " +
		walletSum("credit_account") + " AS wallet_in, " + walletSum("debit_account") + " AS wallet_out",
		scope: scope, match: match, in: `wallet_in`, out: `wallet_out`,
		// The user index bounds an exact count of one user's rows. (Type and status select large
		// shares of the rows, which the sample estimates well.)
		indexed: f.UserID != ""})
}

// SummarizeTransactions counts the app's postings that f matches and sums those that credit the
// app's wallet (in) and those that debit it (out); lines between other accounts count in
// neither sum.
func (q *Queries) SummarizeTransactions(ctx context.Context, appID string, f payouts.TransactionFilter) (_ payouts.Summary, err error) {
	defer wrap(&err, "summarize transactions")
	wallet, err := q.appWalletID(ctx, appID)
	if err != nil {
		return payouts.Summary{}, err
	}
	var scope, match listQuery
	scope.scope(appID, f.Range)
	transactionMatch(&match, f)
	return q.summarize(ctx, summaryQuery{table: "postings", columns: "user_id, debit_account, credit_account, amount, created, state",
		scope: scope, match: match,
		in:      `CASE WHEN credit_account = ` + wallet + ` AND state = 'posted' THEN amount ELSE 0 END`,
		out:     `CASE WHEN debit_account = ` + wallet + ` AND state = 'posted' THEN amount ELSE 0 END`,
		indexed: f.UserID != ""})
}

// appWalletID is the id of the app's wallet account, written for a query; an app without a
// wallet yet has none, and "0" names no account.
func (q *Queries) appWalletID(ctx context.Context, appID string) (string, error) {
	wallet, err := q.AppWalletID(ctx, appID)
	return strconv.FormatInt(wallet, 10), err
}

// AppWalletID is the id of the app's wallet account, or 0 when the app has none yet. Unlike
// FindAccount it takes no lock: an account's id never changes.
func (q *Queries) AppWalletID(ctx context.Context, appID string) (int64, error) {
	var wallet int64
	err := q.queryRow(ctx, `SELECT id FROM ledger_accounts WHERE app_id = ? AND kind = ? AND ref = ''`,
		appID, ledger.AppWallet).Scan(&wallet)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	return wallet, nil
}

// summaryQuery is what a summary reads: the rows of table within scope (an app and a creation
// range, served by an index on (app_id, created)) that match; in and out are what each row moved
// into and out of the app's wallet, in cents. indexed says an index bounds the rows match selects.
type summaryQuery struct {
	table        string
	columns      string // the columns the conditions read, all in the table's summary index
	scope, match listQuery
	in, out      string
	indexed      bool
}

// summarize sums the newest summarySample rows of the scope. When the scope holds no more, the
// figures are exact. Otherwise an indexed filter is counted exactly up to summarySample rows, and
// failing that the sample's figures are scaled by the time the whole scope spans over the time
// the sample spans: an estimate, which assumes rows came at a steady rate.
func (q *Queries) summarize(ctx context.Context, sq summaryQuery) (payouts.Summary, error) {
	match := "1 = 1"
	if len(sq.match.where) > 0 {
		match = strings.Join(sq.match.where, " AND ")
	}
	args := slices.Concat(sq.match.args, sq.match.args, sq.match.args, sq.scope.args)
	var read, oldest, newest, count, in, out int64
	err := q.queryRow(ctx, `SELECT COUNT(*), COALESCE(MIN(created), 0), COALESCE(MAX(created), 0), `+sq.sums(match)+`
		FROM (SELECT `+sq.columns+` FROM `+sq.table+` WHERE `+strings.Join(sq.scope.where, " AND ")+`
		ORDER BY created DESC LIMIT `+strconv.Itoa(summarySample)+`) AS sample`, args...).
		Scan(&read, &oldest, &newest, &count, &in, &out)
	if err != nil || read < summarySample {
		return payouts.Summary{Count: count, MoneyIn: payouts.Money(in), MoneyOut: payouts.Money(out), Exact: true}, err
	}
	if sq.indexed {
		all := sq.scope
		all.and(sq.match)
		err := q.queryRow(ctx, `SELECT COUNT(*), `+sq.sums("1 = 1")+`
			FROM (SELECT `+sq.columns+` FROM `+sq.table+` WHERE `+strings.Join(all.where, " AND ")+`
			LIMIT `+strconv.Itoa(summarySample)+`) AS matched`, all.args...).Scan(&read, &count, &in, &out)
		if err != nil || read < summarySample {
			return payouts.Summary{Count: count, MoneyIn: payouts.Money(in), MoneyOut: payouts.Money(out), Exact: true}, err
		}
	}
	var first int64
	if err := q.queryRow(ctx, `SELECT MIN(created) FROM `+sq.table+` WHERE `+
		strings.Join(sq.scope.where, " AND "), sq.scope.args...).Scan(&first); err != nil {
		return payouts.Summary{}, err
	}
	scale := 1.0
	if newest > oldest {
		scale = float64(newest-first) / float64(newest-oldest)
	}
	estimate := func(n int64) int64 { return int64(math.Round(float64(n) * scale)) }
	return payouts.Summary{Count: estimate(count), MoneyIn: payouts.Money(estimate(in)), MoneyOut: payouts.Money(estimate(out))}, nil
}

// sums are the columns of a summary: the count of rows that match, and what those moved in and
// out.
func (sq summaryQuery) sums(match string) string {
	return `COALESCE(SUM(CASE WHEN ` + match + ` THEN 1 ELSE 0 END), 0),
		CAST(COALESCE(SUM(CASE WHEN ` + match + ` THEN ` + sq.in + ` ELSE 0 END), 0) AS BIGINT),
		CAST(COALESCE(SUM(CASE WHEN ` + match + ` THEN ` + sq.out + ` ELSE 0 END), 0) AS BIGINT)`
}
