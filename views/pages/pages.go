// Package pages holds the dashboard's pages, one file per noun, each with its view model. Every
// part that htmx swaps on its own is its own component, named after what it shows.
package pages

// shortID shortens a UUID to its first block for tables; the full id is on the object's page.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
