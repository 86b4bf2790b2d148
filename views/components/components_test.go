package components

import (
	"context"
	"strings"
	"testing"
	"time"

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

// Every count a page shows is grouped by thousands, as amounts are: "2000 rows" reads "2,000 rows".
func TestCount(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {2000, "2,000"}, {12345, "12,345"},
		{1234567, "1,234,567"}, {-1450, "-1,450"}, {-9223372036854775808, "-9,223,372,036,854,775,808"},
		{9223372036854775807, "9,223,372,036,854,775,807"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := Count(tc.n); got != tc.want {
				t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
	if got := Count(2000); got != "2,000" { // an int, as len() gives
		t.Errorf("Count(int 2000) = %q", got)
	}
}

// Metadata reads as a table of keys and values in stored order, values escaped, strings unquoted;
// empty metadata says so and a value that is no object is still shown whole.
func TestMetadataTable(t *testing.T) {
	tests := []struct {
		name     string
		metadata string
		want     []string
		absent   []string
	}{
		{"object in order", `{"order":"A-17","count":3,"tags":["x", "y"]}`,
			[]string{`<th scope="row"`, ">order</th>", ">A-17</td>", ">count</th>", ">3</td>", `>[&#34;x&#34;,&#34;y&#34;]</td>`}, []string{"No metadata", `"A-17"`}},
		{"escaped", `{"<b>":"<script>alert(1)</script>"}`,
			[]string{"&lt;b&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;"}, []string{"<script>", "<b>"}},
		{"empty", ``, []string{"No metadata."}, []string{"<table"}},
		{"null", `null`, []string{"No metadata."}, []string{"<table"}},
		{"empty object", `{}`, []string{"No metadata."}, []string{"<table"}},
		{"lone string", `"a note"`, []string{">Value</th>", ">a note</td>"}, nil},
		{"malformed", `{"a":`, []string{">Value</th>", `>{&#34;a&#34;:</td>`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			html := render(t, MetadataTable(MetadataEntries([]byte(tc.metadata))))
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("missing %q in %s", w, html)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(html, a) {
					t.Errorf("unexpected %q in %s", a, html)
				}
			}
		})
	}
	ordered := render(t, MetadataTable(MetadataEntries([]byte(`{"z":1,"a":2}`))))
	if z, a := strings.Index(ordered, ">z<"), strings.Index(ordered, ">a<"); z < 0 || a < z {
		t.Error("keys are not in stored order")
	}
}

// A progress bar is a labelled native progress element in the theme's class, never past full.
func TestProgress(t *testing.T) {
	tests := []struct {
		done, total int
		want        string
	}{
		{0, 2, `<progress class="progress mt-2" max="2" value="0" aria-labelledby="t">0 of 2</progress>`},
		{1500, 2000, `<progress class="progress mt-2" max="2000" value="1500" aria-labelledby="t">1,500 of 2,000</progress>`},
		{0, 0, `<progress class="progress mt-2" max="1" value="0" aria-labelledby="t">0 of 0</progress>`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := render(t, Progress(tc.done, tc.total, "t")); got != tc.want {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRequestValuesComeFromArguments: the CSRF field carries the token it is given, and relative
// times count from the now they are given, not the machine's clock.
func TestRequestValuesComeFromArguments(t *testing.T) {
	now := time.Date(2031, 3, 4, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		c    templ.Component
		want []string
	}{
		{"CSRF field", CSRFField("tok-123"), []string{`name="_csrf"`, `value="tok-123"`}},
		{"time", Time(now.Add(-3*time.Hour), now), []string{"3 hours ago", `datetime="2031-03-04T09:00:00Z"`}},
		{"time ahead", Time(now.Add(2*24*time.Hour), now), []string{"in 2 days"}},
		{"date and time", DateTime(now.Add(-5*time.Minute), now), []string{"2031-03-04 11:55 UTC", "5 minutes ago"}},
		{"no time", Time(time.Time{}, now), []string{"—"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(t, tt.c)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("rendered %q; want it to contain %q", got, w)
				}
			}
		})
	}
}
