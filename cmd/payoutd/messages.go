package main

import (
	"fmt"
	"strings"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/notify/smtpmail"
	"github.com/disburse/disburse/internal/notify/twiliosms"
	"github.com/disburse/disburse/internal/payoutd"
)

// messageProviders are the providers --messages may name, by name, with the channel each serves
// and how it is built from its settings in the environment, which it never logs.
var messageProviders = map[string]struct {
	channel string
	build   func(getenv func(string) string) (payoutd.MessageProvider, error)
}{
	"smtp":   {"email", buildSMTP},
	"twilio": {"sms", buildTwilio},
}

// buildSMTP is an SMTP server from DISBURSE_SMTP_URL (smtp://user:password@host:587, STARTTLS;
// smtps:// for implicit TLS), DISBURSE_EMAIL_FROM and DISBURSE_EMAIL_REPLY_TO.
func buildSMTP(getenv func(string) string) (payoutd.MessageProvider, error) {
	n, err := smtpmail.New(smtpmail.Config{URL: getenv("DISBURSE_SMTP_URL"), From: getenv("DISBURSE_EMAIL_FROM"),
		ReplyTo: getenv("DISBURSE_EMAIL_REPLY_TO")})
	if err != nil {
		return payoutd.MessageProvider{}, fmt.Errorf("%w (DISBURSE_SMTP_URL, DISBURSE_EMAIL_FROM, DISBURSE_EMAIL_REPLY_TO)", err)
	}
	return payoutd.MessageProvider{Name: "smtp", Channels: []string{"email"}, Notifier: n}, nil
}

// buildTwilio is a Twilio account from TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM or
// TWILIO_MESSAGING_SERVICE_SID, and TWILIO_API_BASE (tests).
func buildTwilio(getenv func(string) string) (payoutd.MessageProvider, error) {
	n, err := twiliosms.New(twiliosms.Config{AccountSID: getenv("TWILIO_ACCOUNT_SID"), AuthToken: getenv("TWILIO_AUTH_TOKEN"),
		From: getenv("TWILIO_FROM"), MessagingServiceSID: getenv("TWILIO_MESSAGING_SERVICE_SID"), APIBase: getenv("TWILIO_API_BASE")})
	if err != nil {
		return payoutd.MessageProvider{}, fmt.Errorf("%w (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID)", err)
	}
	return payoutd.MessageProvider{Name: twiliosms.Name, Channels: []string{"sms"}, Notifier: n, Status: n}, nil
}

// parseMessages reads "channel=provider,..." (provider: sandbox or a provider's name) and builds
// each provider named.
func parseMessages(spec string, getenv func(string) string) ([]payoutd.MessageProvider, error) {
	var out []payoutd.MessageProvider
	seen := map[string]bool{}
	for _, pair := range cli.List(spec) {
		channel, name, ok := strings.Cut(pair, "=")
		channel, name = strings.TrimSpace(channel), strings.TrimSpace(name)
		if !ok || (channel != "email" && channel != "sms") || seen[channel] {
			return nil, fmt.Errorf("%q: want email=PROVIDER or sms=PROVIDER, each once", pair)
		}
		seen[channel] = true
		if name == payoutd.SandboxRail {
			continue
		}
		p, known := messageProviders[name]
		if !known || p.channel != channel {
			return nil, fmt.Errorf("%q: %s messages go through sandbox%s", pair, channel, map[string]string{"email": " or smtp", "sms": " or twilio"}[channel])
		}
		mp, err := p.build(getenv)
		if err != nil {
			return nil, err
		}
		out = append(out, mp)
	}
	return out, nil
}

// parseCountries reads the calling codes texts may go to: "1,44".
func parseCountries(spec string) ([]string, error) {
	var out []string
	for _, c := range cli.List(spec) {
		c = strings.TrimPrefix(strings.TrimSpace(c), "+")
		if c == "" || len(c) > 3 || strings.Trim(c, "0123456789") != "" || c[0] == '0' {
			return nil, fmt.Errorf("%q is not a country calling code (1, 44, 91)", c)
		}
		out = append(out, c)
	}
	return out, nil
}
