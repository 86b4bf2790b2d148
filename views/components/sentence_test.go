package components

import (
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func TestSentence(t *testing.T) {
	tests := []struct {
		label, problem, want string
	}{
		{"First name", "is required", "Enter the first name."},
		{"Amount in dollars", "is required", "Enter the amount in dollars."},
		{"SSN", "is required", "Enter the SSN."},
		{"Verification code", "is not the token we sent",
			"That code is not the one we sent. Check the latest message and try again."},
		{"Email", "is not a valid email address", "Enter an email address like name@example.com."},
		{"User id", "is not a valid id", "That is not a valid user id. Copy the whole id from its page."},
		{"Phone number", "is not a valid phone number; write it with its country code, like +1 415 555 2671",
			"Enter a valid phone number, like (415) 513-2552, or one of another country with its code, like +44 20 7946 0958."},
		{"Country calling code", "must be 1 to 3 digits", "Country calling code must be 1 to 3 digits."},
		{"Amount in dollars", "must be greater than zero", "Amount in dollars must be greater than zero."},
		{"Reason", "say why the link is canceled", "Say why the link is canceled."},
		{"Amount in dollars", "enter an amount like 12.34", "Enter an amount like 12.34."},
		{"Metadata", `must be a JSON object, like {"order": "A-17"}`, `Metadata must be a JSON object, like {"order": "A-17"}.`},
		{"Email", "That address is taken.", "That address is taken."},
		{"Email", "  ", ""},
		{"", "is required", "This field is required."},
		{"", "must be true", "This field must be true."},
	}
	for _, tc := range tests {
		t.Run(tc.label+" "+tc.problem, func(t *testing.T) {
			if got := Sentence(tc.label, tc.problem); got != tc.want {
				t.Errorf("Sentence(%q, %q) = %q, want %q", tc.label, tc.problem, got, tc.want)
			}
		})
	}
}

// A field without a problem renders no error element at all, so the form keeps no empty band;
// a field with one shows it as a sentence.
func TestFieldErrorElement(t *testing.T) {
	field := FieldProps{Name: "first_name", Label: "First name"}
	withError := field
	withError.Error = "is required"
	tests := []struct {
		name      string
		component templ.Component
		want      string // "" = no error element
	}{
		{"field without error", Field(field), ""},
		{"text area without error", TextArea(field), ""},
		{"checkbox without error", Checkbox(field), ""},
		{"select without error", Select(SelectProps{Name: "role", Label: "Role"}), ""},
		{"form error without message", FormErrorIn("", "sm:col-span-3"), ""},
		{"field with error", Field(withError), "Enter the first name."},
		{"select with error", Select(SelectProps{Name: "role", Label: "Role", Error: "must be admin or support"}),
			"Role must be admin or support."},
		{"form error with message", FormErrorIn("Some fields need attention.", "sm:col-span-3"), "Some fields need attention."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			html := render(t, tc.component)
			hasError := strings.Contains(html, "-error\"") || strings.Contains(html, `role="alert"`)
			if tc.want == "" && (hasError || strings.Contains(html, "text-red")) {
				t.Errorf("renders an error element with no problem: %s", html)
			}
			if tc.want != "" && (!hasError || !strings.Contains(html, tc.want)) {
				t.Errorf("want an error element saying %q: %s", tc.want, html)
			}
		})
	}
}
