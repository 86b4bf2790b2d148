package webhook_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/webhook"
)

// The Standard Webhooks reference vector: a signature receivers' libraries accept.
func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	got, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330",
		[]byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %q, want %q", got, want)
	}
}

func TestHeadersVerifyWithEitherSecretDuringRotation(t *testing.T) {
	const oldSecret, newSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kIHNlY3JldCBvZiAzMiBieXRlcyEhISE="
	at := time.Unix(1_700_000_000, 0)
	body := []byte(`{"id":"e1"}`)
	h := http.Header{}
	for k, v := range webhook.Headers("e1", at, body, []string{newSecret, oldSecret}) {
		h.Set(k, v)
	}
	tests := []struct {
		name   string
		secret string
		body   []byte
		now    time.Time
		ok     bool
	}{
		{"new secret", newSecret, body, at, true},
		{"old secret", oldSecret, body, at, true},
		{"other secret", "whsec_b3RoZXI=", body, at, false},
		{"body changed", newSecret, []byte(`{"id":"e2"}`), at, false},
		{"too old", newSecret, body, at.Add(6 * time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := client.VerifyWebhookAt(tt.secret, h, tt.body, tt.now)
			if (err == nil) != tt.ok {
				t.Fatalf("verify: %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url     string
		sandbox bool
		ok      bool
	}{
		{"https://hooks.example.com/in", false, true},
		{"http://93.184.216.34:8080/in", false, true},
		{"ftp://hooks.example.com/in", false, false},
		{"https://", false, false},
		{"http://localhost:9000/in", false, false},
		{"http://127.0.0.1/in", false, false},
		{"http://10.1.2.3/in", false, false},
		{"http://192.168.1.1/in", false, false},
		{"http://169.254.169.254/latest/meta-data", false, false},
		{"http://[::1]/in", false, false},
		{"http://[fe80::1]/in", false, false},
		{"http://100.64.0.1/in", false, false},
		{"http://127.0.0.1/in", true, true},
		{"http://localhost:9000/in", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := webhook.New(webhook.Config{AllowPrivate: tt.sandbox}).CheckURL(tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckURL: %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// A name that resolves to a loopback address is refused when the sender
// connects, whatever registration said: the dialer checks the address it is about to reach.
func TestSendRefusesPrivateAddressesAtConnectTime(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	// A name stands for any name DNS answers with an internal address.
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, target := range []string{srv.URL, byName} {
		r := webhook.New(webhook.Config{}).Send(context.Background(), service.WebhookMessage{URL: target, ID: "e1",
			Timestamp: time.Now(), Body: []byte(`{}`), Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}})
		if r.Err == nil {
			t.Fatalf("%s: sent (status %d), want refused", target, r.StatusCode)
		}
	}
	if hits != 0 {
		t.Fatalf("receiver got %d requests, want none", hits)
	}
}

func TestSendSignsAndReportsTheAnswer(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	var verr error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		verr = client.VerifyWebhook(secret, r.Header, body)
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, strings.Repeat("x", 2000))
	}))
	defer srv.Close()
	r := webhook.New(webhook.Config{AllowPrivate: true}).Send(context.Background(), service.WebhookMessage{URL: srv.URL,
		ID: "e1", Timestamp: time.Now(), Body: []byte(`{"a":1}`), Secrets: []string{secret}})
	if r.Err != nil || r.StatusCode != http.StatusTeapot || len(r.Response) != 512 {
		t.Fatalf("result %+v (response %d bytes), want 418 with a 512-byte excerpt", r, len(r.Response))
	}
	if verr != nil {
		t.Fatalf("receiver could not verify: %v", verr)
	}
}
