// Package layout is the dashboard's shell: the page frame with navigation by role, the signed-in
// operator, flash messages and the toast area.
package layout

import (
	"encoding/json"
	"strings"

	"github.com/disburse/disburse/views/components"
)

// Props is the view model of the shell around every page.
type Props struct {
	Title    string
	Operator *Operator // nil when nobody is signed in
	Nav      []NavLink
	Flashes  []components.Flash
	Assets   Assets
	CSRF     string // the session's token, sent with every htmx request and the sign-out form
}

// Operator is who is signed in, as the shell shows them.
type Operator struct {
	Name  string
	Email string
	Role  string
}

// RoleShown is the role to show beside the name, empty when the name already says it: the first
// admin is named "Admin", and "Admin · Admin" says nothing twice.
func (o Operator) RoleShown() string {
	if strings.EqualFold(strings.TrimSpace(o.Name), strings.TrimSpace(o.Role)) {
		return ""
	}
	return o.Role
}

// NavLink is a navigation link the operator's role allows.
type NavLink struct {
	Label  string
	Href   string
	Active bool
	More   bool // under the More menu on a wide screen
}

// navSplit parts links into those of the bar and those under its More menu, and says whether
// the page shown is one under More, which then marks the menu's button.
func navSplit(links []NavLink) (bar, more []NavLink, moreActive bool) {
	for _, l := range links {
		if l.More {
			more = append(more, l)
			moreActive = moreActive || l.Active
		} else {
			bar = append(bar, l)
		}
	}
	return bar, more, moreActive
}

// navItemClass styles a link of the navigation, or the More menu's button, by whether it is (or
// holds) the page shown.
func navItemClass(active bool) string {
	const base = "cursor-pointer rounded-md px-2.5 py-2 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 "
	if active {
		return base + "bg-indigo-50 text-indigo-700"
	}
	return base + "text-gray-700 hover:bg-gray-100"
}

// Assets are the versioned URLs of the embedded CSS and scripts.
type Assets struct {
	CSS  string
	HTMX string
	App  string
}

// htmxConfig makes htmx work under the CSP (no inline indicator styles, no eval) and swap error
// answers too: the server retargets them to the toast area, and 422 form answers replace the form.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,` +
	`"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},` +
	`{"code":"[45]..","swap":true,"error":true}]}`

// csrfHeaders is the hx-headers value that makes every htmx request carry the CSRF token.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}
