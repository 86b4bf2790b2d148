package handlers

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// Every list page takes its cursor from ?after=ID (older rows) or ?before=ID (newer rows), the
// API's starting_after and ending_before, so each page costs the same and its URL is a bookmark.

// pageOf reads the page a list request asks for.
func pageOf(c *fiber.Ctx, limit int) payouts.Page {
	return payouts.Page{Limit: limit, StartingAfter: c.Query("after"), EndingBefore: c.Query("before")}
}

// pageLinks builds the newer and older links of a page of rows whose first and last ids are
// given. query holds the list's other parameters (filters), kept in both links.
func pageLinks(path string, query url.Values, page payouts.Page, firstID, lastID string, hasMore bool, target string) components.PageLinks {
	links := components.PageLinks{Target: target}
	if firstID == "" {
		return links
	}
	link := func(key, id string) string {
		q := url.Values{}
		for k, vs := range query {
			if vs[0] != "" && k != "after" && k != "before" {
				q.Set(k, vs[0])
			}
		}
		q.Set(key, id)
		return path + "?" + q.Encode()
	}
	backward := page.EndingBefore != ""
	if (backward && hasMore) || (!backward && page.StartingAfter != "") {
		links.Prev = link("before", firstID)
	}
	if backward || hasMore {
		links.Next = link("after", lastID)
	}
	return links
}

// queryURL is path with the non-empty values of query, as a link keeps a list's filters.
func queryURL(path string, query url.Values) string {
	q := url.Values{}
	for k, vs := range query {
		if len(vs) > 0 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// options turns values into the choices of a select, led by the choice of no filter.
func options[T ~string](noFilter string, values []T, label func(T) string) []components.Option {
	out := []components.Option{{Value: "", Label: noFilter}}
	for _, v := range values {
		out = append(out, components.Option{Value: string(v), Label: label(v)})
	}
	return out
}

// userFilterOf reads the ?user= filter of a list: a user id, or empty. Anything else is a
// problem to show beside the list, not a request to send to the service.
func userFilterOf(c *fiber.Ctx) (id, problem string) {
	id = strings.TrimSpace(c.Query("user"))
	if id != "" && !payouts.ValidID(id) {
		return id, "That is not a user id. Copy the id from the user's page (it looks like 8-4-4-4-12 hexadecimal digits)."
	}
	return id, ""
}
