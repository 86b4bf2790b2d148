// Package hosted holds the payee-facing pages of the Payout Service: the payout-link claim page
// and the steps of a hosted flow. They are built for a phone first, run inside
// other sites' iframes, and work without JavaScript: every action is a plain form that posts and
// redirects. Forms reuse the dashboard's field components.
package hosted

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// Button classes of the hosted pages: large touch targets, full width on a phone.
const (
	bigButton       = "inline-flex w-full items-center justify-center rounded-md bg-indigo-600 px-4 py-3 text-base font-semibold text-white shadow-sm hover:bg-indigo-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 focus-visible:ring-offset-2 sm:text-sm"
	secondaryButton = "inline-flex w-full items-center justify-center rounded-md bg-white px-4 py-3 text-base font-semibold text-gray-900 shadow-sm ring-1 ring-inset ring-gray-300 hover:bg-gray-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 sm:text-sm"
)

// Page is the frame of every hosted page.
type Page struct {
	Title   string
	AppName string // who the page speaks for; empty on pages of no app
	CSS     string // URL of the stylesheet
}

// Flow is what every step page of a flow shows: where the payee is, and the session their forms
// carry.
type Flow struct {
	ID      string
	Session string // the signed payee session the page's forms carry; empty before the payee identified
	// Handoff is the short-lived session a redirect's URL carries to the page (URL); empty
	// elsewhere: a page's own links and forms carry no token in their URLs.
	Handoff string
	Key     string // the claim key of a payout link that names nobody, which opens its flow
	AppName string
	Amount  payouts.Money // the payout link's amount; 0 for a flow of no link
	Memo    string
	Steps   []StepItem
}

// StepItem is a step of the flow in the progress bar.
type StepItem struct {
	Name    string
	Done    bool
	Current bool
}

// Label is the step's name for the payee.
func (s StepItem) Label() string { return payouts.StepLabel(s.Name, payouts.ForPayee) }

// NewSteps lists the steps of a flow with the completed ones and the current one marked.
func NewSteps(steps, completed []string, current string) []StepItem {
	done := map[string]bool{}
	for _, s := range completed {
		done[s] = true
	}
	out := make([]StepItem, len(steps))
	for i, s := range steps {
		out[i] = StepItem{Name: s, Done: done[s], Current: s == current}
	}
	return out
}

// position returns the 1-based number of the current step, or 0.
func (f Flow) position() int {
	for i, s := range f.Steps {
		if s.Current {
			return i + 1
		}
	}
	return 0
}

// URL is the flow's page, with the handoff and any extra query pairs (name, value, ...).
func (f Flow) URL(pairs ...string) string {
	q := url.Values{}
	if f.Handoff != "" {
		q.Set("s", f.Handoff)
	}
	if f.Key != "" {
		q.Set("k", f.Key)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		q.Set(pairs[i], pairs[i+1])
	}
	if len(q) == 0 {
		return "/f/" + f.ID
	}
	return "/f/" + f.ID + "?" + q.Encode()
}

// Action is the URL a form of the flow posts to.
// It carries the claim key, which the posts before the payee has a session need.
func (f Flow) Action(path string) string {
	if f.Key == "" {
		return "/f/" + f.ID + "/" + path
	}
	return "/f/" + f.ID + "/" + path + "?" + url.Values{"k": {f.Key}}.Encode()
}

// Identify is the view model of the page where the payee gives their phone number.
type Identify struct {
	Form components.Form
	// NewPayee asks for names and email too: the number belongs to nobody yet.
	NewPayee bool
	Notice   string // why the payee is here again, such as an expired session
	// EmailTo, mostly masked, is where the code goes when it goes to the link's email: the page
	// asks for nothing then.
	EmailTo string
}

// Details is the view model of the page where the payee whose code proved the link's email,
// which nobody holds, gives their names and phone.
type Details struct {
	Form  components.Form
	Email string // the email the code proved
}

// Verify is the view model of the page where the payee types the token texted to them.
type Verify struct {
	Form    components.Form
	Phone   string // the number the token went to, mostly masked
	EmailTo string // instead of Phone, the email address the token went to, mostly masked
	Sent    bool   // a new token was just sent
}

// SentTo says where the code went.
func (v Verify) SentTo() string {
	if v.EmailTo != "" {
		return "We emailed a 6-digit code to " + v.EmailTo
	}
	return "We texted a 6-digit code to " + v.Phone
}

// Restart is the label of the link back to the first step.
func (v Verify) Restart() string {
	if v.EmailTo != "" {
		return "Start again"
	}
	return "Use another number"
}

// MaskEmail shows the first letter of an email's name and its domain.
func MaskEmail(email string) string {
	name, domain, ok := strings.Cut(email, "@")
	if !ok || name == "" {
		return email
	}
	return name[:1] + "•••@" + domain
}

// MaskPhone shows only the last four digits of a phone number.
func MaskPhone(p payouts.Phone) string {
	n := p.PhoneNumber
	if len(n) > 4 {
		n = "••• " + n[len(n)-4:]
	}
	return "+" + p.CountryCode + " " + n
}

// Compliance is the view model of the tax form step.
type Compliance struct {
	Form components.Form
	Kind string // "w9" or "w8ben"
}

// PayoutMethods is the view model of the manage-payouts and manage-payments steps.
type PayoutMethods struct {
	Step     string
	Methods  []payouts.PayoutMethod
	Wallet   payouts.Wallet
	NewForm  MethodForm
	Continue string // a problem with continuing, shown by the continue button
}

// shortLabel is a platform's name on the platform links, short enough for a phone.
func shortLabel(p payouts.Platform) string {
	if p == payouts.PlatformACH {
		return "Bank"
	}
	return p.Label()
}

// MethodForm is the form that adds a payout method, for one platform at a time (chosen with
// links, so it needs no script).
type MethodForm struct {
	Form     components.Form
	Platform payouts.Platform
	Open     bool // shown unfolded where it is tucked away: the payee chose a platform or erred
}

// Platforms are the choices of the method form.
func (MethodForm) Platforms() []payouts.Platform { return payouts.Platforms }

// Payout is the view model of the payout step.
type Payout struct {
	Form    components.Form
	Amount  payouts.Money // what will be paid out
	Rest    payouts.Money // what else the wallet holds, paid out only when the payee asks
	Methods []payouts.PayoutMethod
	NewForm MethodForm
}

// Selected is the method the payout form has chosen: the one posted, else the default.
func (p Payout) Selected(m payouts.PayoutMethod) bool {
	if v := p.Form.Value("account_id"); v != "" {
		return v == m.ID
	}
	return m.Default
}

// Done is the view model of a finished flow.
type Done struct {
	Payout    *payouts.Transfer // the payee's latest payout, when the page knows the payee
	SignedOut bool              // opened without a session: show nothing personal
}

// Redirect is the view model of the last step, which sends the payee back to the app.
type Redirect struct {
	URL  string
	Host string
}

// PayoutLink is the view model of the claim page of a payout link.
type PayoutLink struct {
	AppName string
	Amount  payouts.Money
	Memo    string
	Status  payouts.PayoutLinkStatus
	FlowURL string // where the claim button leads; empty for an inert preview
	Created payouts.Time
}

// Error is the view model of an error page.
type Error struct {
	Status  int
	Title   string
	Message string
	Retry   string // a URL to start again from, if there is one
}

// StatusText is the status as a string.
func (e Error) StatusText() string { return strconv.Itoa(e.Status) }

// withDefault fills in an empty field.
func withDefault(p components.FieldProps, v string) components.FieldProps {
	p.Value = defaultValue(p.Value, v)
	return p
}

// secret is a field whose value is never written back into the page (a tax id, an account
// number): after an error the payee types it again.
func secret(p components.FieldProps) components.FieldProps {
	p.Value, p.Autocomplete = "", "off"
	return p
}

func defaultValue(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
