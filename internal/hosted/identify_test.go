package hosted_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"testing"
)

// inputValue returns the value of the page's input named name, and whether there is one.
func inputValue(p page, name string) (string, bool) {
	m := regexp.MustCompile(`name="` + regexp.QuoteMeta(name) + `" type="[^"]*" value="([^"]*)"`).FindStringSubmatch(p.Body)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

// TestIdentifyKnownPayee: the identify step shows what the payout link already says about its
// payee, so the payee checks it rather than typing it again, and a number typed the usual ways
// is the number the link names.
func TestIdentifyKnownPayee(t *testing.T) {
	env := start(t)
	fund(t, env, 100_00)
	bo := createUser(t, env, "Bo", "D", "bo409@example.com", "5555550409")
	tests := []struct {
		name  string
		link  map[string]any
		shown map[string]string // input name -> value; "" = no such input
	}{
		{"name, email and phone", map[string]any{"amount": 1_00, "payee": map[string]string{"first_name": "Zoë",
			"last_name": "García-López", "email": "zoe@example.com", "country_code": "1", "phone_number": "555-555-0401"}},
			map[string]string{"first_name": "Zoë", "last_name": "García-López", "email": "zoe@example.com",
				"country_code": "1", "phone_number": "5555550401"}},
		{"phone only", map[string]any{"amount": 1_00, "payee": map[string]string{"phone_number": "5555550402"}},
			map[string]string{"phone_number": "5555550402", "first_name": ""}},
		{"issued to a user", map[string]any{"amount": 1_00, "user_id": bo.ID},
			map[string]string{"phone_number": "", "first_name": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flowID := *createLink(t, env, tc.link).FlowID
			p := get(t, env, "/f/"+flowID)
			for name, want := range tc.shown {
				got, ok := inputValue(p, name)
				if want == "" && ok && got != "" {
					t.Errorf("%s shows %q, want it empty or absent", name, got)
				}
				if want != "" && got != want {
					t.Errorf("%s shows %q (present %v), want %q\n%s", name, got, ok, want, p.Body)
				}
			}
		})
	}

	t.Run("the pre-filled form, number typed with punctuation, sends the code", func(t *testing.T) {
		flowID := *createLink(t, env, tests[0].link).FlowID
		form := url.Values{}
		for name, v := range tests[0].shown {
			form.Set(name, v)
		}
		form.Set("phone_number", "(555) 555-0401")
		p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), form)
		if p.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", p.Status, p.Body)
		}
		if _, sent := env.Inbox.Last("+1 5555550401"); !sent {
			t.Error("no code went to the link's phone")
		}
	})
}
