package payouts

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
)

// Step names of a hosted flow.
const (
	StepCompliance      = "compliance"
	StepIDVerification  = "id-verification"
	StepBackgroundCheck = "background-check"
	StepManagePayments  = "manage-payments"
	StepManagePayouts   = "manage-payouts"
	StepPayout          = "payout"
	// StepTaxForms is ours: the payee consents to receive their 1099 forms electronically and
	// downloads them.
	StepTaxForms = "tax-forms"
	StepRedirect = "redirect"
)

// StepNames lists every step in the order a flow runs them.
var StepNames = []string{StepCompliance, StepIDVerification, StepBackgroundCheck, StepManagePayments,
	StepManagePayouts, StepPayout, StepTaxForms, StepRedirect}

// ValidStep reports whether name is a known step.
func ValidStep(name string) bool {
	for _, s := range StepNames {
		if s == name {
			return true
		}
	}
	return false
}

// Audience is who reads a label: a payee on the hosted pages, or an operator on the dashboard.
type Audience int

const (
	ForPayee Audience = iota
	ForOperator
)

// StepLabel names a step for people. The payee is told what to do; the operator, who sets a
// flow up, what the step asks of the payee.
func StepLabel(step string, a Audience) string {
	payee, operator := stepLabel(step)
	if a == ForOperator {
		return operator
	}
	return payee
}

func stepLabel(step string) (payee, operator string) {
	switch step {
	case StepCompliance:
		return "Tax information", "Tax form (W-9 or W-8BEN)"
	case StepIDVerification:
		return "Identity check", "Identity check"
	case StepBackgroundCheck:
		return "Background check", "Background check"
	case StepManagePayments:
		return "Payment methods", "Payment methods"
	case StepManagePayouts:
		return "Payout methods", "Payout methods"
	case StepPayout:
		return "Get paid", "Payout"
	case StepTaxForms:
		return "Your tax forms", "Tax forms (consent to electronic delivery, Copy B)"
	case StepRedirect:
		return "Finish", "Redirect back to your site"
	}
	return step, step
}

// Step is a step of a flow request: on the wire either a bare name or an object with a name and
// options.
type Step struct {
	Name        string `json:"name"`
	RedirectURL string `json:"redirect_url,omitempty"`
}

func (s *Step) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &s.Name)
	}
	if len(b) > 0 && b[0] == '{' {
		type plain Step
		return json.Unmarshal(b, (*plain)(s))
	}
	// A type error, so that encoding/json names the field it was in.
	return &json.UnmarshalTypeError{Value: "step", Type: reflect.TypeFor[Step]()}
}

// MarshalJSON writes a step with no options as its bare name.
func (s Step) MarshalJSON() ([]byte, error) {
	if s.RedirectURL == "" {
		return json.Marshal(s.Name)
	}
	type plain Step
	return json.Marshal(plain(s))
}

// Flow is a hosted, multi-step page a payee completes, embeddable in an iframe.
type Flow struct {
	ID             string   `json:"id"`
	Created        Time     `json:"created"`
	UserID         *string  `json:"user_id"`
	Steps          []string `json:"steps"`
	CompletedSteps []string `json:"completed_steps"`
	Link           string   `json:"link"`
	PayoutLinkID   *string  `json:"payout_link_id,omitempty"`
	Metadata       Metadata `json:"metadata"`
	// RedirectURL is ours: where the redirect step sends the payee.
	RedirectURL string `json:"redirect_url,omitempty"`
}

// Done reports whether every step is completed.
func (f Flow) Done() bool { return len(f.CompletedSteps) >= len(f.Steps) }

// CreateFlowRequest is the body of POST /v2/flows.
type CreateFlowRequest struct {
	Steps    []Step   `json:"steps"`
	UserID   string   `json:"user_id,omitempty"`
	Metadata Metadata `json:"metadata,omitempty"`
}

// steps records a problem with a list of steps: none where required, an unknown or repeated
// name, or a redirect step without an http(s) redirect_url.
func (p Problems) steps(field string, in []Step, required bool) {
	if len(in) == 0 && required {
		p.Add(field, "must name at least one step")
	}
	seen := map[string]bool{}
	for _, st := range in {
		switch {
		case !ValidStep(st.Name):
			p.Add(field, "unknown step "+quote(st.Name)+"; steps are "+strings.Join(StepNames, ", "))
		case seen[st.Name]:
			p.Add(field, "step "+quote(st.Name)+" is named twice")
		case st.Name == StepRedirect:
			u, err := url.Parse(st.RedirectURL)
			if st.RedirectURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				p.Add(field, "the redirect step needs a redirect_url starting with https://")
			}
		}
		seen[st.Name] = true
	}
}

// quote quotes a name taken from a request, cut short so that an answer stays readable.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// StepOrder returns the names of valid steps in the order a flow runs them, and the redirect
// step's URL.
func StepOrder(in []Step) (names []string, redirect string) {
	seen := map[string]bool{}
	for _, st := range in {
		seen[st.Name] = true
		if st.Name == StepRedirect {
			redirect = st.RedirectURL
		}
	}
	for _, name := range StepNames {
		if seen[name] {
			names = append(names, name)
		}
	}
	return names, redirect
}

// FlowFilter narrows GET /v2/flows (our extension).
type FlowFilter struct {
	UserID string // the flows of this user
}

// Validate checks the filter's user id.
func (f FlowFilter) Validate() error {
	p := Problems{}
	p.id("user_id", f.UserID, false)
	return p.Err()
}

// Validate checks the steps, the user id and the metadata; whether the user exists is the
// service's to check.
func (r CreateFlowRequest) Validate() error {
	p := Problems{}
	p.steps("steps", r.Steps, true)
	p.id("user_id", r.UserID, false)
	p.metadata(r.Metadata)
	return p.Err()
}
