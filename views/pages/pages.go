// Package pages holds the dashboard's pages, one file per noun, each with its view model. Every
// part that htmx swaps on its own is its own component, named after what it shows.
package pages

import "github.com/disburse/disburse/payouts"

// shortID names an object in tables by its short id; the full id is on the object's page.
func shortID(id string) string { return payouts.ShortID(id) }
