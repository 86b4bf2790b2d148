package client

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"
)

// RetryPolicy says how a request that is safe to repeat is retried. Only GETs and requests whose
// body carries an idempotency key are ever retried, so a retry can never pay twice; they are
// retried on network errors (including an attempt's timeout), 429, 5xx other than 501 and 505,
// and 409 resource-busy (the first attempt of the same key is still running).
type RetryPolicy struct {
	// MaxAttempts counts every attempt, the first included; below 1 it counts as 1 (no retry).
	MaxAttempts int
	// BaseDelay is the wait before the second attempt, doubled before each further one; each
	// wait is drawn at random from its upper half (jitter), so clients do not retry in lockstep.
	BaseDelay time.Duration
	// MaxDelay caps one wait; 0 means no cap. A Retry-After asking for longer than MaxDelay ends
	// the retries rather than calling back sooner than the server asked.
	MaxDelay time.Duration
}

// DefaultRetryPolicy is the policy of a client made without WithRetry: three attempts, waiting
// about 250 ms then 500 ms, never more than 5 s per wait.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 5 * time.Second}
}

// backoff is the wait after the given failed attempt (1 for the first): BaseDelay doubled per
// attempt, capped, with jitter over its upper half.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.BaseDelay
	if d <= 0 {
		return 0
	}
	for i := 1; i < attempt; i++ {
		if (p.MaxDelay > 0 && d >= p.MaxDelay) || d > math.MaxInt64/2 {
			break
		}
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// afterAnswer says whether an error answer may be retried and after how long.
func (p RetryPolicy) afterAnswer(attempt int, e *payouts.Error, header http.Header) (time.Duration, bool) {
	retryable := e.Status == http.StatusTooManyRequests ||
		(e.Status >= 500 && e.Status != http.StatusNotImplemented && e.Status != http.StatusHTTPVersionNotSupported) ||
		(e.Status == http.StatusConflict && e.Code == payouts.EResourceBusy)
	if !retryable {
		return 0, false
	}
	if wait, ok := retryAfter(header.Get("Retry-After"), time.Now()); ok {
		if p.MaxDelay > 0 && wait > p.MaxDelay {
			return 0, false
		}
		return wait, true
	}
	return p.backoff(attempt), true
}

// retryAfter reads a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, at.Sub(now)), true
	}
	return 0, false
}
