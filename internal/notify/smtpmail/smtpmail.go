// Package smtpmail sends the service's email over SMTP (github.com/wneessen/go-mail): STARTTLS
// required on smtp:// (implicit TLS on smtps://), authentication when the URL names a user, a
// Message-ID stable per outbox message, a plain text part and an HTML alternative, and the app's
// name on the From address.
package smtpmail

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"

	gomail "github.com/wneessen/go-mail"

	"github.com/disburse/disburse/internal/service"
)

// Config is where and as whom email is sent, parsed once by cmd/payoutd.
type Config struct {
	// URL is smtp://user:password@host:port (STARTTLS, required) or smtps://... (implicit TLS);
	// without a user no authentication is tried.
	URL string
	// From is the address every email is sent from ("payouts@example.com"); each app's name is
	// its display name. ReplyTo, when set, receives replies to apps that name no address.
	From    string
	ReplyTo string
	// TLS, when set, replaces the TLS configuration (tests trust their server's certificate).
	TLS *tls.Config
}

// Notifier sends email. It is a service.Notifier for the email channel.
type Notifier struct {
	opts    []gomail.Option
	host    string
	from    string
	domain  string
	replyTo string
}

// New checks cfg and returns its notifier; it connects only to send.
func New(cfg Config) (*Notifier, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Hostname() == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, errors.New("smtp: the URL must be smtp://[user:password@]host[:port] or smtps://[user:password@]host[:port]")
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil || from.Name != "" {
		return nil, fmt.Errorf("smtp: the From address %q is not a plain address (user@domain)", cfg.From)
	}
	if cfg.ReplyTo != "" {
		if _, err := mail.ParseAddress(cfg.ReplyTo); err != nil {
			return nil, fmt.Errorf("smtp: the Reply-To address %q is not an address", cfg.ReplyTo)
		}
	}
	opts := []gomail.Option{gomail.WithTLSPortPolicy(gomail.TLSMandatory)}
	if u.Scheme == "smtps" {
		opts = []gomail.Option{gomail.WithSSLPort(false)}
	}
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("smtp: port %q is not a number", p)
		}
		opts = append(opts, gomail.WithPort(port))
	}
	if user := u.User.Username(); user != "" {
		password, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(user), gomail.WithPassword(password))
	}
	tlsConfig := &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	if cfg.TLS != nil {
		tlsConfig = cfg.TLS
	}
	opts = append(opts, gomail.WithTLSConfig(tlsConfig))
	domain := from.Address[strings.LastIndex(from.Address, "@")+1:]
	return &Notifier{opts: opts, host: u.Hostname(), from: from.Address, domain: domain, replyTo: cfg.ReplyTo}, nil
}

// MessageID is the Message-ID of an outbox message, the same on every try, so that a mail system
// that sees a second copy after a crash knows it for one.
func (n *Notifier) MessageID(key, appID string) string {
	return key + "." + appID + "@" + n.domain
}

// Send delivers m. A 5xx answer is a refusal for good (service.ErrUndeliverable); anything else
// that fails (a connection, a 4xx) is tried again later.
func (n *Notifier) Send(ctx context.Context, m service.Message) error {
	msg := gomail.NewMsg()
	name := m.AppName
	if name == "" {
		name = "Payouts"
	}
	if err := msg.FromFormat(name, n.from); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("%w: smtp: %v", service.ErrUndeliverable, err)
	}
	if replyTo := cmp.Or(m.ReplyTo, n.replyTo); replyTo != "" {
		if err := msg.ReplyTo(replyTo); err != nil {
			return fmt.Errorf("smtp: %w", err)
		}
	}
	if m.Key != "" {
		msg.SetMessageIDWithValue(n.MessageID(m.Key, m.AppID))
	} else {
		msg.SetMessageID()
	}
	msg.SetDate()
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	client, err := gomail.NewClient(n.host, n.opts...)
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	err = client.DialAndSendWithContext(ctx, msg)
	var sendErr *gomail.SendError
	if errors.As(err, &sendErr) && sendErr.ErrorCode() >= 500 && sendErr.ErrorCode() < 600 {
		return fmt.Errorf("%w: smtp: %v", service.ErrUndeliverable, err)
	}
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return nil
}
