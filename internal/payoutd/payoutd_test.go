package payoutd_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
)

func TestParseKey(t *testing.T) {
	key := bytes.Repeat([]byte{0xab, 0x01, 0xfe, 0x7f}, 8)
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"hex", hex.EncodeToString(key), true},
		{"hex upper case", strings.ToUpper(hex.EncodeToString(key)), true},
		{"base64", base64.StdEncoding.EncodeToString(key), true},
		{"base64 without padding", base64.RawStdEncoding.EncodeToString(key), true},
		{"base64 URL alphabet", base64.URLEncoding.EncodeToString(key), true},
		{"surrounding space", "  " + base64.StdEncoding.EncodeToString(key) + "\n", true},
		{"16 bytes", base64.StdEncoding.EncodeToString(key[:16]), false},
		{"33 bytes", base64.StdEncoding.EncodeToString(append(key, 1)), false},
		{"not hex nor base64", strings.Repeat("z!", 32), false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := payoutd.ParseKey(tt.in)
			if !tt.ok {
				if err == nil {
					t.Fatalf("ParseKey(%q) = %x, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseKey(%q): %v", tt.in, err)
			}
			if !bytes.Equal(got, key) {
				t.Errorf("ParseKey(%q) = %x, want %x", tt.in, got, key)
			}
		})
	}
}

// newServer starts payoutd on cfg and closes it when t ends.
func newServer(t *testing.T, cfg payoutd.Config) *payoutd.Server {
	t.Helper()
	srv, err := payoutd.New(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestKeyFileOnSQLite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "new-folder", "disburse.db")
	srv := newServer(t, payoutd.Config{DB: db})
	creds, created, err := srv.EnsureApp(context.Background(), "Default", "first key")
	if err != nil || !created {
		t.Fatalf("EnsureApp = %v, %v", created, err)
	}
	srv.Close()

	fi, err := os.Stat(payoutd.KeyFile(db))
	if err != nil {
		t.Fatalf("no key file beside the database: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("key file mode %v, want 0600", perm)
	}
	first, _ := os.ReadFile(payoutd.KeyFile(db))
	if _, err := payoutd.ParseKey(string(first)); err != nil {
		t.Errorf("key file holds no key: %v", err)
	}

	// A second start keeps the key and the app, whose key it cannot show again.
	srv = newServer(t, payoutd.Config{DB: db})
	again, created, err := srv.EnsureApp(context.Background(), "Default", "first key")
	if err != nil || created {
		t.Fatalf("second EnsureApp = %v, %v; want the existing app", created, err)
	}
	if again.AppID != creds.AppID || again.APIKey != "" {
		t.Errorf("second EnsureApp = %+v, want app %s without a key", again, creds.AppID)
	}
	if second, _ := os.ReadFile(payoutd.KeyFile(db)); !bytes.Equal(first, second) {
		t.Errorf("key file changed on the second start")
	}
}

func TestConfiguredKeyWritesNoFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "disburse.db")
	newServer(t, payoutd.Config{DB: db, EncryptionKey: bytes.Repeat([]byte{1}, payoutd.KeySize)})
	if _, err := os.Stat(payoutd.KeyFile(db)); !os.IsNotExist(err) {
		t.Errorf("key file written although a key was configured (stat: %v)", err)
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		cfg  payoutd.Config
		want string
	}{
		{"PostgreSQL without a key", payoutd.Config{DB: "postgres://nobody@127.0.0.1:1/none"}, "encryption key is required"},
		{"short key", payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db"), EncryptionKey: []byte("short")}, "want 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := payoutd.New(context.Background(), tt.cfg, nil)
			if err == nil {
				srv.Close()
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestServeAndShutdown(t *testing.T) {
	srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db")})
	creds, err := srv.CreateApp(context.Background(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	r := startServing(t, srv)

	url := r.origin + "/api/v2/apps/" + creds.AppID
	req, _ := http.NewRequest("GET", url, nil)
	req.SetBasicAuth(creds.ClientID, creds.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %d, want 200", url, resp.StatusCode)
	}

	r.cancel()
	select {
	case err := <-r.served:
		if err != nil {
			t.Errorf("Serve after shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get(url); err == nil {
		t.Error("the server still answers after shutdown")
	}
}

// serving is a server's Serve running on a free port: cancel ends it, and served then gets
// what it returned.
type serving struct {
	origin string
	cancel context.CancelFunc
	served chan error
}

func startServing(t *testing.T, srv *payoutd.Server) serving {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := serving{origin: "http://" + ln.Addr().String(), cancel: cancel, served: make(chan error, 1)}
	go func() { s.served <- srv.Serve(ctx, ln) }()
	return s
}

// serve starts srv on a free port until the test ends and returns its origin.
func serve(t *testing.T, srv *payoutd.Server) string {
	t.Helper()
	s := startServing(t, srv)
	t.Cleanup(func() {
		s.cancel()
		<-s.served
	})
	return s.origin
}

// TestBodyLimit sends bodies over and under the configured limit, several times each: a client
// still sending when the server answers must read the 413, not a reset connection.
func TestBodyLimit(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		body   int
		status int
	}{
		{"2 MiB over the default limit", 0, 2 << 20, http.StatusRequestEntityTooLarge},
		{"16 MiB over the default limit", 0, 16 << 20, http.StatusRequestEntityTooLarge},
		{"2 KiB over a 1 KiB limit", 1 << 10, 2 << 10, http.StatusRequestEntityTooLarge},
		{"2 MiB under a 4 MiB limit", 4 << 20, 2 << 20, http.StatusUnauthorized}, // read, then refused
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db"), BodyLimit: tt.limit})
			origin := serve(t, srv)
			body := bytes.Repeat([]byte("a"), tt.body)
			for i := 0; i < 5; i++ {
				resp, err := http.Post(origin+"/api/v2/users", "application/json", bytes.NewReader(body))
				if err != nil {
					t.Fatalf("attempt %d: %v", i, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.status {
					t.Fatalf("attempt %d: %d %s, want %d", i, resp.StatusCode, b, tt.status)
				}
				if tt.status == http.StatusRequestEntityTooLarge && !bytes.Contains(b, []byte(`"error":"request-too-large"`)) {
					t.Errorf("attempt %d: 413 body %s, want the API error body", i, b)
				}
			}
		})
	}
}

// TestShutdownWithSpareConnection holds a connection that never sends a request, as browsers
// and HTTP clients keep spares: the graceful shutdown must not wait for it.
func TestShutdownWithSpareConnection(t *testing.T) {
	srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db"), ShutdownTimeout: 5 * time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	// One used connection, left idle, and one spare.
	resp, err := http.Get("http://" + ln.Addr().String() + "/api/v2/users")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	spare, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()
	time.Sleep(100 * time.Millisecond) // let the server take the spare

	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v; a spare connection held the shutdown past its timeout", err)
	}
}

// TestEnsureAppNamesItsKey: the app EnsureApp makes has one key, named as told ("dashboard" for
// the embedded dashboard's), which authenticates and is the request's own when used.
func TestEnsureAppNamesItsKey(t *testing.T) {
	srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "disburse.db")})
	ctx := context.Background()
	creds, created, err := srv.EnsureApp(ctx, "disburse", "dashboard")
	if err != nil || !created {
		t.Fatalf("EnsureApp = %v, %v", created, err)
	}
	p, err := srv.Service().Authenticate(ctx, creds.ClientID, creds.APIKey, "")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := srv.Service().APIKeys(ctx, p.AppID, creds.AppID, p.KeyID)
	if err != nil || len(keys.Data) != 1 || keys.Data[0].Name != "dashboard" || !keys.Data[0].Current {
		t.Fatalf("keys = %+v, %v; want one, dashboard, current", keys, err)
	}
}
