package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"

	"github.com/google/uuid"
)

// maxResponseBytes bounds what the client reads of one answer; a page of 100 objects is far
// smaller, so anything larger is a misbehaving server, not data.
const maxResponseBytes = 16 << 20

// DefaultTimeout bounds each HTTP attempt unless WithTimeout says otherwise.
const DefaultTimeout = 30 * time.Second

// DefaultUserAgent is sent unless WithUserAgent says otherwise.
const DefaultUserAgent = "disburse-go-client/1"

// Client calls the /v2 API of a Payout Service (ours or the public one). It is safe for
// concurrent use; make one per service and credentials and share it.
type Client struct {
	base      string // scheme://host[/prefix], without a trailing slash and without /v2
	http      *http.Client
	clientID  string
	apiKey    string
	appID     string
	userAgent string
	timeout   time.Duration
	retry     RetryPolicy
	ext       extensionCache // what the server offers beyond the public API, asked once

	// sleep waits between attempts; tests replace it to record the waits instead of taking them.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithCredentials authenticates every request with HTTP Basic: the app's client id and API key.
func WithCredentials(clientID, apiKey string) Option {
	return func(c *Client) { c.clientID, c.apiKey = clientID, apiKey }
}

// WithHTTPClient sends requests through hc (its transport, proxy and TLS settings) instead of a
// fresh http.Client.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.http = hc }
}

// WithTimeout bounds each HTTP attempt (connect, send, read the whole answer); 0 means no bound
// beyond the context. The context passed to a method bounds the whole call, retries included.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) { c.timeout = d }
}

// WithUserAgent replaces the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// WithAppID sends the Api-App-Id header, which selects an app for an organization key.
func WithAppID(appID string) Option {
	return func(c *Client) { c.appID = appID }
}

// WithRetry replaces DefaultRetryPolicy(). RetryPolicy{MaxAttempts: 1} turns retries off.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// New returns a client for the service at baseURL, the URL that /v2 paths are appended to: for
// our service http://host:port/api, for the public one https://api.dots.dev/api. A trailing
// slash, or a trailing /v2, is accepted.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[/prefix]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("client: base URL %q: no query, fragment or user info allowed", baseURL)
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v2")
	u.RawPath = ""
	c := &Client{
		base:      strings.TrimRight(u.String(), "/"),
		http:      &http.Client{},
		userAgent: DefaultUserAgent,
		timeout:   DefaultTimeout,
		retry:     DefaultRetryPolicy(),
		sleep:     sleepContext,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.http == nil {
		return nil, errors.New("client: WithHTTPClient(nil)")
	}
	if c.timeout < 0 {
		return nil, errors.New("client: negative timeout")
	}
	return c, nil
}

// request is one API call. Segments are the path after the base ("v2", "users", id); each is
// escaped, and an empty one (a missing id) is refused before anything is sent.
type request struct {
	method   string
	segments []string
	query    url.Values
	body     any
	// retry marks a request that is safe to repeat: a GET, or a body carrying an idempotency key.
	retry bool
}

// get is a GET of the path made of segments; GETs are always safe to retry.
func get(segments ...string) request {
	return request{method: http.MethodGet, segments: segments, retry: true}
}

// idempotencyKey returns key, or a fresh random UUID when the caller gave none. A request
// carrying a key is retried: the service answers a repeat with the original object instead of
// acting twice.
func idempotencyKey(key string) string {
	if key == "" {
		return uuid.NewString()
	}
	return key
}

// path builds the escaped path of r, or fails on an empty segment.
func (r request) path() (string, error) {
	var b strings.Builder
	for _, s := range r.segments {
		if s == "" {
			return "", &payouts.Error{Code: payouts.EInvalidInput, Message: "an object id is required",
				Fields: map[string]string{"id": "required"}}
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String(), nil
}

// do sends r, retrying it when the policy and the request allow, and decodes a successful answer
// into out (nil: any body is ignored, as for bodiless successes).
func (c *Client) do(ctx context.Context, r request, out any) error {
	path, err := r.path()
	if err != nil {
		return err
	}
	target := c.base + path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var payload []byte
	if r.body != nil {
		if payload, err = json.Marshal(r.body); err != nil {
			return fmt.Errorf("client: encoding %s %s: %w", r.method, path, err)
		}
	}
	attempts := 1
	if r.retry {
		attempts = max(1, c.retry.MaxAttempts)
	}
	for attempt := 1; ; attempt++ {
		res, err := c.attempt(ctx, r.method, target, payload)
		if err == nil && res.status >= 200 && res.status < 300 {
			if err := decodeSuccess(res.body, out); err != nil {
				return fmt.Errorf("client: %s %s: %d answer: %w", r.method, path, res.status, err)
			}
			return nil
		}
		var wait time.Duration
		retry := false
		if err != nil {
			// A failure of the caller's context is final; a failure of one attempt is not.
			retry = ctx.Err() == nil && !errors.Is(err, errTooLarge)
			wait = c.retry.backoff(attempt)
			err = fmt.Errorf("client: %s %s: %w", r.method, path, err)
		} else {
			apiErr := decodeError(res.status, res.body)
			wait, retry = c.retry.afterAnswer(attempt, apiErr, res.header)
			err = apiErr
		}
		if !retry || attempt >= attempts {
			return err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w; retry abandoned: %w", err, serr)
		}
	}
}

// answer is what one attempt received.
type answer struct {
	status int
	header http.Header
	body   []byte
}

var errTooLarge = fmt.Errorf("answer larger than %d bytes", maxResponseBytes)

// attempt sends one HTTP request and reads the whole answer. Every call makes a fresh body reader,
// so a retry re-sends exactly the same bytes.
func (c *Client) attempt(ctx context.Context, method, target string, payload []byte) (*answer, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if c.clientID != "" || c.apiKey != "" {
		req.SetBasicAuth(c.clientID, c.apiKey)
	}
	if c.appID != "" {
		req.Header.Set("Api-App-Id", c.appID)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the %d answer: %w", resp.StatusCode, err)
	}
	if len(data) > maxResponseBytes {
		return nil, errTooLarge
	}
	return &answer{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// errNoBody is returned when a call that answers with an object got a success without one.
var errNoBody = errors.New("the service answered without a body")

// decodeSuccess decodes a 2xx body into out; out == nil accepts any body, including none, and
// a *[]byte takes the body as it came.
func decodeSuccess(body []byte, out any) error {
	if out == nil {
		return nil
	}
	if raw, ok := out.(*[]byte); ok { // a download: the body as it came
		*raw = body
		return nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return errNoBody
	}
	return json.Unmarshal(trimmed, out)
}

// call sends r and decodes the answer into a new T.
func call[T any](ctx context.Context, c *Client, r request) (*T, error) {
	var v T
	if err := c.do(ctx, r, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
