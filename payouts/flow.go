package payouts

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Step names of a hosted flow.
const (
	StepCompliance      = "compliance"
	StepIDVerification  = "id-verification"
	StepBackgroundCheck = "background-check"
	StepManagePayments  = "manage-payments"
	StepManagePayouts   = "manage-payouts"
	StepPayout          = "payout"
	StepRedirect        = "redirect"
)

// StepNames lists every step in the order a flow runs them.
var StepNames = []string{StepCompliance, StepIDVerification, StepBackgroundCheck, StepManagePayments,
	StepManagePayouts, StepPayout, StepRedirect}

// ValidStep reports whether name is a known step.
func ValidStep(name string) bool {
	for _, s := range StepNames {
		if s == name {
			return true
		}
	}
	return false
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
	PayoutLinkID   *string  `json:"payout_link_id"`
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
