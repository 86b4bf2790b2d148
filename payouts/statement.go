package payouts

import (
	"strconv"
	"strings"
	"time"
)

// Statement is our extension (GET /v2/statement): the app's wallet, or one user's, over the
// period [From, To): the balance it opened with, every ledger line posted to it in the period
// in the order they were posted, and the balance it closed with, which is the opening plus the
// signed amounts of the lines and the wallet's posted balance as of To. A line is dated by when
// it was posted: a reservation (a payout, its fee, a payout link's escrow) when it settled; a
// voided reservation is never posted and is on no statement.
type Statement struct {
	// UserID names the user whose wallet this is; absent for the app's wallet.
	UserID         *string         `json:"user_id,omitempty"`
	From           Time            `json:"from"`
	To             Time            `json:"to"`
	OpeningBalance Money           `json:"opening_balance"`
	ClosingBalance Money           `json:"closing_balance"`
	MoneyIn        Money           `json:"money_in"`
	MoneyOut       Money           `json:"money_out"`
	ByType         []TypeTotal     `json:"by_type"`
	Movements      []StatementLine `json:"movements"`
}

// StatementLine is one ledger line of a statement.
type StatementLine struct {
	TransactionID int64           `json:"transaction_id"`
	TransferID    string          `json:"transfer_id"`
	Posted        Time            `json:"posted"`
	Type          TransactionType `json:"type"`
	// Counterparty names the other side of the line: the account the money came from or went to.
	Counterparty string `json:"counterparty"`
	// UserID is the user whose wallet the line touched, if any.
	UserID *string `json:"user_id,omitempty"`
	// Amount is signed: positive into the wallet, negative out of it.
	Amount Money `json:"amount"`
	// Balance is the wallet's balance after the line.
	Balance Money `json:"balance"`
}

// TypeTotal is one type's share of a summary or a statement: how many rows, and what they moved
// into and out of the wallet.
type TypeTotal struct {
	Type     string `json:"type"`
	Count    int64  `json:"count"`
	MoneyIn  Money  `json:"money_in"`
	MoneyOut Money  `json:"money_out"`
}

// MaxStatementLines bounds the lines of one statement; a longer period is refused, so a
// statement is whole or not given.
const MaxStatementLines = 10_000

// StatementRequest asks for a statement: UserID's wallet (empty: the app's) over [From, To).
type StatementRequest struct {
	UserID   string
	From, To time.Time
}

// The query parameters of a statement.
const (
	QueryStatementUser = "user_id"
	QueryStatementFrom = "from"
	QueryStatementTo   = "to"
)

// ParseStatementRequest reads a statement request from query parameters (get returns one by
// name): instants in RFC 3339. It checks the request too.
func ParseStatementRequest(get func(string) string) (StatementRequest, error) {
	r := StatementRequest{UserID: strings.TrimSpace(get(QueryStatementUser))}
	p := Problems{}
	r.From = parseInstant(p, QueryStatementFrom, get(QueryStatementFrom))
	r.To = parseInstant(p, QueryStatementTo, get(QueryStatementTo))
	if len(p) > 0 {
		return r, p.Err()
	}
	return r, r.Validate()
}

// Validate checks the period (both ends given, the end after the start) and the user id.
func (r StatementRequest) Validate() error {
	p := Problems{}
	p.id(QueryStatementUser, r.UserID, false)
	switch {
	case r.From.IsZero():
		p.Add(QueryStatementFrom, "is required")
	case r.To.IsZero():
		p.Add(QueryStatementTo, "is required")
	case !r.To.After(r.From):
		p.Add(QueryStatementTo, "must be after "+QueryStatementFrom)
	}
	return p.Err()
}

// Query writes the request's parameters with set.
func (r StatementRequest) Query(set func(key, value string)) {
	if r.UserID != "" {
		set(QueryStatementUser, r.UserID)
	}
	set(QueryStatementFrom, r.From.UTC().Format(time.RFC3339Nano))
	set(QueryStatementTo, r.To.UTC().Format(time.RFC3339Nano))
}

// TooManyStatementLines is the answer to a period with more than MaxStatementLines lines.
func TooManyStatementLines() *Error {
	return FieldError(QueryStatementTo, "the period holds more than "+strconv.Itoa(MaxStatementLines)+
		" ledger lines: choose a shorter one")
}
