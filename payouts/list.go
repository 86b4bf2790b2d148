package payouts

import "strconv"

// List is one page of a list endpoint, newest first.
type List[T any] struct {
	HasMore bool `json:"has_more"`
	Data    []T  `json:"data"`
}

// Page limits of list endpoints.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// Page selects a page of a list: at most Limit objects after StartingAfter (older) or before
// EndingBefore (newer). Cursors are object ids; at most one may be set.
type Page struct {
	Limit         int
	StartingAfter string
	EndingBefore  string
}

// Validate fills in the default limit and checks the range and cursors.
func (p *Page) Validate() error {
	if p.Limit == 0 {
		p.Limit = DefaultLimit
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		return FieldError("limit", "must be between 1 and 100")
	}
	if p.StartingAfter != "" && p.EndingBefore != "" {
		return FieldError("starting_after", "give starting_after or ending_before, not both")
	}
	return nil
}

// ParsePage reads a page from query parameters, as transports receive them: an absent limit is
// the default, any other value must be an integer from 1 to 100.
func ParsePage(limit, startingAfter, endingBefore string) (Page, error) {
	p := Page{Limit: DefaultLimit, StartingAfter: startingAfter, EndingBefore: endingBefore}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > MaxLimit {
			return p, FieldError("limit", "must be between 1 and 100")
		}
		p.Limit = n
	}
	return p, p.Validate()
}
