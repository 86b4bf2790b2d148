// Package twiliosms sends the service's texts through Twilio's Messages API with Twilio's
// official Go SDK (github.com/twilio/twilio-go), from a phone number or a Messaging Service, and
// verifies Twilio's status callbacks with the SDK's request validator.
package twiliosms

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/twilio/twilio-go"
	twclient "github.com/twilio/twilio-go/client"
	openapi "github.com/twilio/twilio-go/rest/api/v2010"

	"github.com/disburse/disburse/internal/service"
)

// Name is the provider's name in status callback URLs and Config.Routes.
const Name = "twilio"

// Config is a Twilio account's, parsed once by cmd/payoutd.
type Config struct {
	AccountSID string
	AuthToken  string
	// From is the sender's number (E.164) or MessagingServiceSID the Messaging Service's: one
	// of the two.
	From                string
	MessagingServiceSID string
	// APIBase replaces https://api.twilio.com (tests point it at their double).
	APIBase string
}

// Notifier texts through Twilio. It is a service.Notifier for the sms channel and the
// service.MessageStatusHook of Twilio's status callbacks.
type Notifier struct {
	cfg       Config
	api       *openapi.ApiService
	validator twclient.RequestValidator
}

// New checks cfg and returns its notifier.
func New(cfg Config) (*Notifier, error) {
	switch {
	case !strings.HasPrefix(cfg.AccountSID, "AC") || cfg.AuthToken == "":
		return nil, errors.New("twilio: an account SID (AC...) and an auth token are required")
	case (cfg.From == "") == (cfg.MessagingServiceSID == ""):
		return nil, errors.New("twilio: give a From number or a Messaging Service SID (MG...), not both")
	case cfg.MessagingServiceSID != "" && !strings.HasPrefix(cfg.MessagingServiceSID, "MG"):
		return nil, errors.New("twilio: a Messaging Service SID starts with MG")
	case cfg.From != "" && !strings.HasPrefix(cfg.From, "+"):
		return nil, errors.New("twilio: the From number must be E.164 (+15555550100)")
	}
	httpClient := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if cfg.APIBase != "" {
		base, err := url.Parse(cfg.APIBase)
		if err != nil || base.Host == "" {
			return nil, fmt.Errorf("twilio: the API base %q is not a URL", cfg.APIBase)
		}
		httpClient.Transport = rebase{base: base}
	}
	c := &twclient.Client{Credentials: twclient.NewCredentials(cfg.AccountSID, cfg.AuthToken), HTTPClient: httpClient}
	c.SetAccountSid(cfg.AccountSID)
	rest := twilio.NewRestClientWithParams(twilio.ClientParams{Client: c})
	return &Notifier{cfg: cfg, api: rest.Api, validator: twclient.NewRequestValidator(cfg.AuthToken)}, nil
}

// rebase sends the SDK's requests to another origin.
type rebase struct{ base *url.URL }

func (r rebase) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.base.Scheme, r.base.Host, r.base.Host
	return http.DefaultTransport.RoundTrip(req)
}

// undeliverable are the Messages API's error codes for a message no retry will send: the number
// is invalid, not a mobile, unsubscribed (STOP), or in a region the account may not text.
var undeliverable = map[int]bool{
	21211: true, // invalid 'To' number
	21214: true, // 'To' number cannot be reached
	21408: true, // permission to send to this region is not enabled
	21610: true, // the recipient unsubscribed
	21612: true, // no route to the 'To' number from this sender
	21614: true, // 'To' number is not a valid mobile number
	21635: true, // 'To' number cannot receive text messages (a landline)
}

// Send texts m. The SDK takes no context: a call is bounded by the client's 10 s timeout.
func (n *Notifier) Send(_ context.Context, m service.Message) error {
	if m.Channel != "sms" {
		return fmt.Errorf("%w: twilio: only texts are sent, not %s", service.ErrUndeliverable, m.Channel)
	}
	// The phone as the service writes it, "+CC NUMBER", without its space, is its E.164 form.
	to := strings.ReplaceAll(m.To, " ", "")
	p := &openapi.CreateMessageParams{}
	p.SetTo(to)
	p.SetBody(m.Body)
	if n.cfg.MessagingServiceSID != "" {
		p.SetMessagingServiceSid(n.cfg.MessagingServiceSID)
	} else {
		p.SetFrom(n.cfg.From)
	}
	if m.StatusCallback != "" {
		p.SetStatusCallback(m.StatusCallback)
	}
	_, err := n.api.CreateMessage(p)
	var rest *twclient.TwilioRestError
	if errors.As(err, &rest) && undeliverable[rest.Code] {
		return fmt.Errorf("%w: twilio: %d %s", service.ErrUndeliverable, rest.Code, rest.Message)
	}
	if err != nil {
		return fmt.Errorf("twilio: %w", err)
	}
	return nil
}

// Report verifies a status callback Twilio posted to callbackURL (X-Twilio-Signature over the URL and
// the form's parameters, with the account's auth token) and reads its final status: delivered,
// or undelivered or failed with Twilio's error code.
func (n *Notifier) Report(callbackURL string, header http.Header, body []byte) (service.MessageReport, bool, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return service.MessageReport{}, false, &service.RailUnverified{Reason: "the body is not a form"}
	}
	params := make(map[string]string, len(form))
	for k, v := range form {
		if len(v) != 1 {
			return service.MessageReport{}, false, &service.RailUnverified{Reason: "parameter " + k + " repeats"}
		}
		params[k] = v[0]
	}
	if sig := header.Get("X-Twilio-Signature"); sig == "" || !n.validator.Validate(callbackURL, params, sig) {
		return service.MessageReport{}, false, &service.RailUnverified{Reason: "X-Twilio-Signature does not match"}
	}
	if params["AccountSid"] != n.cfg.AccountSID {
		return service.MessageReport{}, false, &service.RailUnverified{Reason: "another account's message"}
	}
	switch params["MessageStatus"] {
	case "delivered":
		return service.MessageReport{Delivered: true}, true, nil
	case "undelivered", "failed":
		reason := "Twilio reports the text " + params["MessageStatus"]
		if code := params["ErrorCode"]; code != "" {
			reason += " (error " + code + ")"
		}
		return service.MessageReport{Reason: reason}, true, nil
	}
	return service.MessageReport{}, false, nil
}
