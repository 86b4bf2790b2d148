package client_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
)

// The Standard Webhooks reference vector, which every verifier library accepts.
func TestVerifyWebhook(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"test": 2432232314}`)
	signedAt := time.Unix(1614265330, 0)
	header := func(id, ts, sig string) http.Header {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		return h
	}
	const good = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		now    time.Time
		ok     bool
	}{
		{"reference vector", header("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", good), body, signedAt, true},
		{"one of several signatures", header("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,bm9wZQ== "+good), body, signedAt, true},
		{"other id", header("msg_other", "1614265330", good), body, signedAt, false},
		{"other body", header("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", good), []byte(`{"test": 1}`), signedAt, false},
		{"other version", header("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="), body, signedAt, false},
		{"timestamp too old", header("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", good), body, signedAt.Add(10 * time.Minute), false},
		{"timestamp in the future", header("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", good), body, signedAt.Add(-10 * time.Minute), false},
		{"no headers", http.Header{}, body, signedAt, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := client.VerifyWebhookAt(secret, tt.header, tt.body, tt.now)
			if (err == nil) != tt.ok {
				t.Fatalf("VerifyWebhookAt: %v, want ok %v", err, tt.ok)
			}
			if tt.name == "other body" && !errors.Is(err, client.ErrWebhookSignature) {
				t.Errorf("error %v, want ErrWebhookSignature", err)
			}
		})
	}
}
