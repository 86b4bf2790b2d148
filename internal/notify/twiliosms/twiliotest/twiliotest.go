// Package twiliotest is a double of Twilio's Messages API that answers with the request and
// response pairs recorded from Twilio's public API reference (testdata/create_message.json of
// package twiliosms, which names its source), and checks every request against them: the path,
// Basic authentication, a form body whose parameters the reference's CreateMessage defines and
// whose recorded example of the same kind (from a number, or through a Messaging Service) sends
// too. It keeps the requests it took, and signs status callbacks as Twilio does.
package twiliotest

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
)

// The account the double serves.
const (
	AccountSID = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	AuthToken  = "0123456789abcdef0123456789abcdef"
)

// InvalidTo is the number the double refuses as Twilio refuses an invalid one (error 21211).
const InvalidTo = "+1555"

type pair struct {
	Request  map[string]any  `json:"request"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
}

type recorded struct {
	Properties []string        `json:"request_properties"`
	Required   []string        `json:"request_required"`
	Pairs      map[string]pair `json:"pairs"`
}

// Double is a running double.
type Double struct {
	URL string

	mu       sync.Mutex
	fail     int
	requests []url.Values
}

// New starts a double for t.
func New(t testing.TB) *Double {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "testdata", "create_message.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recorded
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	d := &Double{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+AccountSID+"/Messages.json" ||
			!ok || user != AccountSID || pass != AuthToken || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Errorf("twiliotest: %s %s (auth %v %s), content type %q", r.Method, r.URL.Path, ok, user, r.Header.Get("Content-Type"))
			http.Error(w, "not as recorded", http.StatusBadRequest)
			return
		}
		if err := r.ParseForm(); err != nil {
			t.Errorf("twiliotest: %v", err)
			return
		}
		form := r.PostForm
		d.mu.Lock()
		d.requests = append(d.requests, form)
		fail := d.fail
		d.mu.Unlock()
		if fail != 0 {
			w.WriteHeader(fail)
			return
		}
		kind := "createWoService"
		if form.Has("MessagingServiceSid") {
			kind = "createWithMessagingService"
		}
		if form.Get("To") == InvalidTo {
			kind = "invalidTo"
		}
		p := rec.Pairs[kind]
		for k, v := range form {
			if !slices.Contains(rec.Properties, k) || len(v) != 1 {
				t.Errorf("twiliotest: parameter %s=%v is not one CreateMessage takes once", k, v)
			}
			if _, ok := p.Request[k]; !ok {
				t.Errorf("twiliotest: parameter %s is not in the recorded %s request", k, kind)
			}
		}
		for _, k := range rec.Required {
			if !form.Has(k) {
				t.Errorf("twiliotest: required parameter %s missing", k)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(p.Status)
		w.Write(p.Response)
	}))
	t.Cleanup(srv.Close)
	d.URL = srv.URL
	return d
}

// FailWith makes the double answer every request with status (0: as recorded again).
func (d *Double) FailWith(status int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail = status
}

// Requests are the forms of the requests taken, oldest first.
func (d *Double) Requests() []url.Values {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.requests)
}

// Sign is the X-Twilio-Signature Twilio sends with a request to callbackURL with form params:
// Base64 of the HMAC-SHA1, keyed with the auth token, of the URL followed by each parameter's
// name and value, sorted by name (Twilio's "Webhooks security" documentation).
func Sign(authToken, callbackURL string, params url.Values) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := callbackURL
	for _, k := range keys {
		s += k + params.Get(k)
	}
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// StatusCallback is the form Twilio posts to a message's StatusCallback URL.
func StatusCallback(messageSID, status, errorCode string) url.Values {
	v := url.Values{"AccountSid": {AccountSID}, "ApiVersion": {"2010-04-01"}, "MessageSid": {messageSID},
		"MessageStatus": {status}, "SmsSid": {messageSID}, "SmsStatus": {status}, "From": {"+14155552345"}, "To": {"+15555550101"}}
	if errorCode != "" {
		v.Set("ErrorCode", errorCode)
	}
	return v
}
