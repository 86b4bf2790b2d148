// Package webhook posts events to the endpoints apps register, signed the Standard Webhooks way
// (webhook-id, webhook-timestamp and webhook-signature: "v1,<base64 HMAC-SHA256 of
// id.timestamp.body>"), so receivers verify them with any Standard Webhooks library. It refuses
// private, loopback and link-local targets both when a URL is registered and when it connects,
// so a name that later resolves to an internal address (DNS rebinding) reaches nothing. An IPv6
// address that carries an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) is judged by it,
// and an IPv4 address written other than a.b.c.d (127.1, 0x7f000001, 127。0。0。1) is refused in
// any mode.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/disburse/disburse/internal/service"
)

// DefaultTimeout bounds one delivery attempt: connect, send and read the answer.
const DefaultTimeout = 15 * time.Second

// responseExcerpt is how much of an answer an attempt keeps.
const responseExcerpt = 512

// Config is the sender's settings, parsed by cmd/* and passed down.
type Config struct {
	// Timeout bounds one attempt (default DefaultTimeout).
	Timeout time.Duration
	// AllowPrivate lets deliveries reach private, loopback and link-local addresses: sandbox
	// mode, where receivers run beside the service.
	AllowPrivate bool
}

// Sender is the service's WebhookSender over HTTP.
type Sender struct {
	cfg    Config
	client *http.Client
}

// New returns a Sender.
func New(cfg Config) *Sender {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowPrivate {
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{
		Proxy:               nil, // a proxy would connect for us, past the address check
		DialContext:         refuseIPSpellings(dialer.DialContext),
		TLSHandshakeTimeout: cfg.Timeout,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Sender{cfg: cfg, client: &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		// A redirect is an answer, not an instruction: the endpoint is the URL the app registered.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

var _ service.WebhookSender = (*Sender)(nil)

// errPrivate is what a refused address answers.
var errPrivate = errors.New("must not point at a private, loopback or link-local address")

// refusePrivate is the dialer's Control: it runs after name resolution, on the address about to
// be connected.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if !public(ap.Addr()) {
		return fmt.Errorf("webhook: %s %w", ap.Addr(), errPrivate)
	}
	return nil
}

// refuseIPSpellings wraps the dialer: before any name is looked up, it refuses a host that is an
// IPv4 address not written a.b.c.d (dialedHost), in sandbox mode too.
func refuseIPSpellings(dial func(ctx context.Context, network, address string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if _, err := dialedHost(host); err != nil {
			return nil, fmt.Errorf("webhook: %s %w", host, err)
		}
		return dial(ctx, network, address)
	}
}

// CheckURL refuses what the sender would never reach: anything but http(s), a host that is an
// IPv4 address not written a.b.c.d (dialedHost), and, outside sandbox mode, hosts that are
// private addresses or localhost. Names are checked again at connect time, after they resolve.
func (s *Sender) CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return errors.New("must be an http or https URL")
	}
	host, err := dialedHost(u.Hostname())
	if err != nil {
		return err
	}
	if s.cfg.AllowPrivate {
		return nil
	}
	if name := strings.TrimSuffix(host, "."); name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return errPrivate
	}
	if a, err := netip.ParseAddr(host); err == nil && !public(a) {
		return errPrivate
	}
	return nil
}

// Send posts one signed event and reports the answer. A URL registered before a rule of
// CheckURL's was made is refused by the dialer: the host's spelling here (net/http maps it by
// IDNA before the dialer sees it), the address it resolves to at connect time.
func (s *Sender) Send(ctx context.Context, m service.WebhookMessage) service.WebhookResult {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return service.WebhookResult{Err: err}
	}
	if _, err := dialedHost(req.URL.Hostname()); err != nil {
		return service.WebhookResult{Err: fmt.Errorf("webhook: %s %w", req.URL.Hostname(), err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "disburse-webhooks/1")
	for k, v := range Headers(m.ID, m.Timestamp, m.Body, m.Secrets) {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return service.WebhookResult{Latency: time.Since(start), Err: err}
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, responseExcerpt))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection can be reused
	return service.WebhookResult{StatusCode: resp.StatusCode, Latency: time.Since(start), Response: string(excerpt)}
}

// Headers are the Standard Webhooks headers of a message: its id, the signing time in Unix
// seconds, and one v1 signature per secret, space-separated.
func Headers(id string, at time.Time, body []byte, secrets []string) map[string]string {
	ts := strconv.FormatInt(at.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		if sig, err := Sign(secret, id, ts, body); err == nil {
			sigs = append(sigs, sig)
		}
	}
	return map[string]string{"webhook-id": id, "webhook-timestamp": ts, "webhook-signature": strings.Join(sigs, " ")}
}

// Sign is one Standard Webhooks signature: "v1," and the base64 HMAC-SHA256, under the secret's
// decoded key (whsec_ and base64), of id.timestamp.body.
func Sign(secret, id, timestamp string, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return "", fmt.Errorf("webhook: secret is not whsec_ and base64: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
