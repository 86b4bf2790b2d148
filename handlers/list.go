package handlers

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"disburse/payouts"
	"disburse/views/components"
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
