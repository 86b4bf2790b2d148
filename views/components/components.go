// Package components holds the dashboard's reusable view pieces: money, times, badges, form
// fields with their error messages, empty states, pagination, flash messages and toasts.
//
// What a component needs of the request it answers comes in its arguments: the session's CSRF
// token for the hidden field of a form, the time relative times count from. A page takes both
// as a Request (below) and passes them down.
package components

import (
	"time"

	"github.com/a-h/templ"
)

// Request is what the dashboard's pages need of the request they answer, made by the web package
// (web.Server.View): the session's CSRF token, which every form sends back, and the time
// relative times are counted from (the server's clock, which tests set).
type Request struct {
	CSRF string
	Now  time.Time
}

// Relative says how long ago (or how far ahead) t is from now: "just now", "5 minutes ago",
// "in 2 hours", "3 days ago"; past a month it gives the date.
func Relative(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		s = plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		s = plural(int(d/time.Hour), "hour")
	case d < 30*24*time.Hour:
		s = plural(int(d/(24*time.Hour)), "day")
	default:
		return t.UTC().Format("Jan 2, 2006")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return Count(n) + " " + unit + "s"
}

// Exact is the full time shown on hover, in UTC.
func Exact(t time.Time) string { return t.UTC().Format("Mon, Jan 2, 2006 at 15:04:05 UTC") }

// Flash is a message for the operator: Kind is "success", "error" or "info".
type Flash struct {
	Kind    string
	Message string
}

// FieldProps describes a form field.
type FieldProps struct {
	Name     string // the form field's name, matching the API's field name for error mapping
	Label    string
	Type     string // "text" unless set
	Value    string
	Error    string // the problem to show under the field
	Hint     string // a help text, shown when there is no error
	Required bool
	// Filter marks a field of a filter form: every filter is optional, so its label does not
	// say so, which keeps a filter bar's labels on one line.
	Filter       bool
	Autocomplete string
	InputMode    string
	Placeholder  string
	// Prefix makes the element ids unique when two forms of a page have a field of one name.
	Prefix string
	// HTMX asks the server to check the field when it changes: the URL of a GET that answers
	// the field again (its id is the swap target).
	CheckURL string
}

// ID is the element id of the field's input.
func (f FieldProps) ID() string { return "field-" + f.Prefix + f.Name }

// WrapperID is the element id of the field's wrapper, the swap target of CheckURL.
func (f FieldProps) WrapperID() string { return "wrap-" + f.Prefix + f.Name }

// describedBy is the id of the text that describes the input: its error when it has one,
// otherwise its hint, otherwise none. An input names one description, never two.
// inputClass is the classes of a text box or text area: red when it has a problem.
func inputClass(problem string) templ.CSSClasses {
	return templ.Classes("mt-1 block w-full rounded-md border-0 px-3 py-1.5 text-gray-900 shadow-sm ring-1 ring-inset placeholder:text-gray-400 focus:ring-2 focus:ring-inset sm:text-sm",
		templ.KV("ring-gray-300 focus:ring-indigo-600", problem == ""),
		templ.KV("ring-red-400 focus:ring-red-600", problem != ""))
}

func (f FieldProps) describedBy() string { return describedBy(f.ID(), f.Error, f.Hint) }

func describedBy(id, problem, hint string) string {
	switch {
	case problem != "":
		return id + "-error"
	case hint != "":
		return id + "-hint"
	}
	return ""
}

func (f FieldProps) inputType() string {
	if f.Type == "" {
		return "text"
	}
	return f.Type
}

// Option is a choice of a select field.
type Option struct {
	Value string
	Label string
}

// SelectProps describes a select field.
type SelectProps struct {
	Name     string
	Label    string
	Options  []Option
	Selected string
	Error    string
	Hint     string
	// Attrs are extra attributes of the select element, such as hx-get to swap a dependent form.
	Attrs map[string]any
	Class string // more classes of the select element
}

// FilterSelectProps is a choice of a filter bar (FilterForm). Width is the class that sizes its
// box in the bar, such as "w-36": fixed, so that the bar holds on one row on a laptop and the
// lists filtering by the same choices show them alike.
type FilterSelectProps struct {
	Name     string
	Label    string
	Options  []Option
	Selected string
	Error    string
	Width    string
}

func (s SelectProps) describedBy() string { return describedBy("field-"+s.Name, s.Error, s.Hint) }

// PageLinks are the links of a cursor-paginated table: empty when there is no such page.
type PageLinks struct {
	Prev   string
	Next   string
	Target string // the id (with #) of the element htmx swaps, the table
}

// filterInputType is a search box for live filters (browsers offer to clear it), a text box
// otherwise.
func filterInputType(live bool) string {
	if live {
		return "search"
	}
	return "text"
}

// flashRole makes errors interrupt a screen reader and other messages wait their turn.
func flashRole(kind string) string {
	if kind == "error" {
		return "alert"
	}
	return "status"
}
