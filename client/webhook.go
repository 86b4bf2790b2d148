package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a webhook's timestamp may be from the receiver's clock: older
// deliveries may be replays.
const WebhookTolerance = 5 * time.Minute

// ErrWebhookSignature is what VerifyWebhook answers for a delivery it does not trust.
var ErrWebhookSignature = errors.New("webhook: signature does not verify")

// VerifyWebhook checks a delivery the Standard Webhooks way: one of the space-separated v1
// signatures of webhook-signature is the HMAC-SHA256, under the secret (whsec_ and base64), of
// webhook-id.webhook-timestamp.body, and the timestamp is within WebhookTolerance of now. Pass
// the body exactly as received. A delivery may come more than once: drop repeats by webhook-id
// (the event's id).
func VerifyWebhook(secret string, header http.Header, body []byte) error {
	return VerifyWebhookAt(secret, header, body, time.Now())
}

// VerifyWebhookAt is VerifyWebhook against the given time instead of the clock.
func VerifyWebhookAt(secret string, header http.Header, body []byte, now time.Time) error {
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhook: webhook-timestamp is not Unix seconds")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return errors.New("webhook: webhook-timestamp is too far from now")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return errors.New("webhook: the secret is not whsec_ and base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for sig := range strings.FieldsSeq(sigs) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
