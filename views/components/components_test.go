package components

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// An input names exactly one description: its error, else its hint. (templ has no else-if among
// attributes: it once wrote a literal "else" attribute and two aria-describedby.)
func TestFieldDescribedBy(t *testing.T) {
	for _, tc := range []struct {
		name        string
		field       FieldProps
		describedBy string // "" = no aria-describedby
		invalid     bool
	}{
		{"plain", FieldProps{Name: "amount", Label: "Amount"}, "", false},
		{"hint", FieldProps{Name: "amount", Label: "Amount", Hint: "Like 25.00"}, "field-amount-hint", false},
		{"error", FieldProps{Name: "amount", Label: "Amount", Error: "enter an amount"}, "field-amount-error", true},
		{"error and hint", FieldProps{Name: "amount", Label: "Amount", Error: "enter an amount", Hint: "Like 25.00"}, "field-amount-error", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			html := render(t, Field(tc.field))
			input := html[strings.Index(html, "<input"):]
			input = input[:strings.Index(input, ">")]
			if strings.Contains(input, " else") {
				t.Errorf("input has an else attribute: %s", input)
			}
			n := strings.Count(input, "aria-describedby=")
			switch {
			case tc.describedBy == "" && n != 0:
				t.Errorf("input has aria-describedby, want none: %s", input)
			case tc.describedBy != "" && (n != 1 || !strings.Contains(input, `aria-describedby="`+tc.describedBy+`"`)):
				t.Errorf("input %s: want exactly one aria-describedby=%q", input, tc.describedBy)
			}
			if got := strings.Contains(input, `aria-invalid="true"`); got != tc.invalid {
				t.Errorf("aria-invalid = %v, want %v: %s", got, tc.invalid, input)
			}
			if tc.describedBy != "" && !strings.Contains(html, `id="`+tc.describedBy+`"`) {
				t.Errorf("no element with id %s to describe the input", tc.describedBy)
			}
		})
	}
}

func TestSelectDescribedBy(t *testing.T) {
	html := render(t, Select(SelectProps{Name: "platform", Label: "Platform", Hint: "Pick one"}))
	if !strings.Contains(html, `aria-describedby="field-platform-hint"`) || !strings.Contains(html, `id="field-platform-hint"`) {
		t.Errorf("select with a hint does not name it:\n%s", html)
	}
	html = render(t, Select(SelectProps{Name: "platform", Label: "Platform", Hint: "Pick one", Error: "is required"}))
	if strings.Count(html, "aria-describedby=") != 1 || !strings.Contains(html, `aria-describedby="field-platform-error"`) {
		t.Errorf("select with an error and a hint:\n%s", html)
	}
}
