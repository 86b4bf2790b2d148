package client

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// pageQuery writes a page as query parameters, leaving out what is unset so that the service
// applies its defaults. The client does not validate the page: the service answers a bad one
// with a 400 naming the field, the same way for every caller.
func pageQuery(p payouts.Page) url.Values {
	q := url.Values{}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	setQuery(q, "starting_after", p.StartingAfter)
	setQuery(q, "ending_before", p.EndingBefore)
	return q
}

// setQuery sets a filter parameter unless it is empty (no filter).
func setQuery(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

// listPage fetches one page of a list endpoint.
func listPage[T any](ctx context.Context, c *Client, q url.Values, segments ...string) (*payouts.List[T], error) {
	r := get(segments...)
	r.query = q
	return call[payouts.List[T]](ctx, c, r)
}

// summary fetches the summary of a list (GET /v2/{noun}/summary) for the filter in q.
func summary(ctx context.Context, c *Client, q url.Values, noun string) (*payouts.Summary, error) {
	r := get("v2", noun, "summary")
	r.query = q
	return call[payouts.Summary](ctx, c, r)
}

// all walks every page of a list, newest first, with pages of payouts.MaxLimit objects: the
// cursor of the next page is the id of the last object of this one, until has_more is false. An
// error is yielded once, and ends the walk. Stopping the range loop stops the requests.
func all[T any](ctx context.Context, list func(context.Context, payouts.Page) (*payouts.List[T], error),
	id func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		page := payouts.Page{Limit: payouts.MaxLimit}
		for {
			l, err := list(ctx, page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, v := range l.Data {
				if !yield(v, nil) {
					return
				}
			}
			if !l.HasMore || len(l.Data) == 0 {
				return
			}
			next := id(l.Data[len(l.Data)-1])
			if next == "" || next == page.StartingAfter {
				// A service that does not move its cursor would make this loop forever.
				var zero T
				yield(zero, fmt.Errorf("client: list says has_more but its cursor %q does not advance", next))
				return
			}
			page.StartingAfter = next
		}
	}
}
