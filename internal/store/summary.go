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
	"github.com/disburse/disburse/internal/sqldb"
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
			AND p.transfer_id = transfers.id AND p.state = 'posted' AND p.` + side + ` = ` + wallet + postedIn("p.posted", f.Range) + `)`
	}
	return q.summarize(ctx, summaryQuery{table: "transfers", columns: "user_id, type, status, amount, created, " +
		walletSum("credit_account") + " AS wallet_in, " + walletSum("debit_account") + " AS wallet_out",
		scope: scope, match: match, in: `wallet_in`, out: `wallet_out`, types: transferTypes,
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
	return q.summarize(ctx, summaryQuery{table: "postings", columns: "user_id, debit_account, credit_account, amount, created, posted, state, type",
		scope: scope, match: match, types: transactionTypes,
		in:      `CASE WHEN credit_account = ` + wallet + ` AND state = 'posted'` + postedIn("posted", f.Range) + ` THEN amount ELSE 0 END`,
		out:     `CASE WHEN debit_account = ` + wallet + ` AND state = 'posted'` + postedIn("posted", f.Range) + ` THEN amount ELSE 0 END`,
		indexed: f.UserID != ""})
}

// postedIn is the condition, to AND to a line's, that column (a posting's posted time) lies in
// r's creation range: a range's money is what lines posted in it moved, the statement's
// definition, so a day's figures are final once the day is over, whatever its rows' lines do
// later. Written as literals (microseconds): the summaries' statements repeat their columns.
func postedIn(column string, r payouts.Range) string {
	var cond string
	if !r.CreatedFrom.IsZero() {
		cond += " AND " + column + " >= " + strconv.FormatInt(sqldb.Micros(r.CreatedFrom), 10)
	}
	if !r.CreatedTo.IsZero() {
		cond += " AND " + column + " < " + strconv.FormatInt(sqldb.Micros(r.CreatedTo), 10)
	}
	return cond
}

// appWalletID is the id of the app's wallet account, written for a query; an app without a
// wallet yet has none, and "0" names no account.
func (q *Queries) appWalletID(ctx context.Context, appID string) (string, error) {
	wallet, err := q.AppWalletID(ctx, appID)
	return strconv.FormatInt(wallet, 10), err
}

// AppWalletID is the id of the app's wallet account, or 0 when the app has none yet: in a write
// transaction from the accounts its batch read, when it read the wallet (an account's id never
// changes).
func (q *Queries) AppWalletID(ctx context.Context, appID string) (int64, error) {
	if a, ok := q.job.known(appID, ledger.AppWallet, ""); ok {
		return a.ID, nil
	}
	var wallet int64
	err := q.queryRowTouching(ctx, reading(accountsTable), `SELECT id FROM ledger_accounts WHERE app_id = ? AND kind = ? AND ref = ''`,
		appID, ledger.AppWallet).Scan(&wallet)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	return wallet, nil
}

// The types a summary breaks its figures down by: every type a row of the table can have, so the
// parts add up to the whole.
var (
	transferTypes    = []string{string(payouts.TransferRefill), string(payouts.TransferPayout), string(payouts.TransferBalance)}
	transactionTypes = []string{string(payouts.TransactionRefill), string(payouts.TransactionPayout),
		string(payouts.TransactionBalance), string(payouts.TransactionFee), string(payouts.TransactionPayment),
		string(payouts.TransactionSurrogate)}
)

// summaryQuery is what a summary reads: the rows of table within scope (an app and a creation
// range, served by an index on (app_id, created)) that match; in and out are what each row moved
// into and out of the app's wallet, in cents. indexed says an index bounds the rows match selects.
// types are the values of the rows' type column, which the figures are broken down by.
type summaryQuery struct {
	table        string
	columns      string // the columns the conditions read, all in the table's summary index
	scope, match listQuery
	in, out      string
	types        []string
	indexed      bool
}

// summarize sums the newest summarySample rows of the scope. When the scope holds no more, the
// figures are exact. Otherwise an indexed filter is counted exactly up to summarySample rows, and
// failing that the sample's figures are scaled by the time the whole scope spans over the time
// the sample spans: an estimate, which assumes rows came at a steady rate. The breakdown by type
// is read by the same statements, so it is of the same rows and scaled alike.
func (q *Queries) summarize(ctx context.Context, sq summaryQuery) (payouts.Summary, error) {
	match := "1 = 1"
	if len(sq.match.where) > 0 {
		match = strings.Join(sq.match.where, " AND ")
	}
	// sums writes the match three times for the whole and three times for each type.
	var args []any
	for range 3 * (1 + len(sq.types)) {
		args = append(args, sq.match.args...)
	}
	args = append(args, sq.scope.args...)
	var read, oldest, newest int64
	sums := sq.figures()
	err := q.queryRow(ctx, `SELECT COUNT(*), COALESCE(MIN(created), 0), COALESCE(MAX(created), 0), `+sq.sums(match)+`
		FROM (SELECT `+sq.columns+` FROM `+sq.table+` WHERE `+strings.Join(sq.scope.where, " AND ")+`
		ORDER BY created DESC LIMIT `+strconv.Itoa(summarySample)+`) AS sample`, args...).
		Scan(slices.Concat([]any{&read, &oldest, &newest}, sums.dest())...)
	if err != nil || read < summarySample {
		return sq.summary(sums, 1, true), err
	}
	if sq.indexed {
		all := sq.scope
		all.and(sq.match)
		sums = sq.figures()
		err := q.queryRow(ctx, `SELECT COUNT(*), `+sq.sums("1 = 1")+`
			FROM (SELECT `+sq.columns+` FROM `+sq.table+` WHERE `+strings.Join(all.where, " AND ")+`
			LIMIT `+strconv.Itoa(summarySample)+`) AS matched`, all.args...).Scan(slices.Concat([]any{&read}, sums.dest())...)
		if err != nil || read < summarySample {
			return sq.summary(sums, 1, true), err
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
	return sq.summary(sums, scale, false), nil
}

// figures is one count and its money in and out, for the whole and for each type.
type figures [][3]int64

func (sq summaryQuery) figures() figures { return make(figures, 1+len(sq.types)) }

// dest are the places a row of sums scans into, in the order of sums.
func (f figures) dest() []any {
	out := make([]any, 0, 3*len(f))
	for i := range f {
		out = append(out, &f[i][0], &f[i][1], &f[i][2])
	}
	return out
}

// summary is the figures as a summary, each scaled (1 when exact); a type no row has is left
// out of the breakdown.
func (sq summaryQuery) summary(f figures, scale float64, exact bool) payouts.Summary {
	estimate := func(n int64) int64 { return int64(math.Round(float64(n) * scale)) }
	out := payouts.Summary{Count: estimate(f[0][0]), MoneyIn: payouts.Money(estimate(f[0][1])),
		MoneyOut: payouts.Money(estimate(f[0][2])), Exact: exact, ByType: []payouts.TypeTotal{}}
	for i, typ := range sq.types {
		if t := f[i+1]; t[0] != 0 {
			out.ByType = append(out.ByType, payouts.TypeTotal{Type: typ, Count: estimate(t[0]),
				MoneyIn: payouts.Money(estimate(t[1])), MoneyOut: payouts.Money(estimate(t[2]))})
		}
	}
	return out
}

// sums are the columns of a summary: the count of rows that match, and what those moved in and
// out, then the same of each type's rows. (The types are this package's constants, so they are
// written into the statement, which keeps its arguments the match's alone.)
func (sq summaryQuery) sums(match string) string {
	cols := []string{sq.sumsWhere(match)}
	for _, typ := range sq.types {
		cols = append(cols, sq.sumsWhere(match+" AND type = '"+typ+"'"))
	}
	return strings.Join(cols, ",\n\t\t")
}

func (sq summaryQuery) sumsWhere(match string) string {
	return `COALESCE(SUM(CASE WHEN ` + match + ` THEN 1 ELSE 0 END), 0),
		CAST(COALESCE(SUM(CASE WHEN ` + match + ` THEN ` + sq.in + ` ELSE 0 END), 0) AS BIGINT),
		CAST(COALESCE(SUM(CASE WHEN ` + match + ` THEN ` + sq.out + ` ELSE 0 END), 0) AS BIGINT)`
}
