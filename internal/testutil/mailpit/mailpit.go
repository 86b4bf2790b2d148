// Package mailpit gives tests a real SMTP server, Mailpit (github.com/axllent/mailpit, installed
// by .ci/run with go install): each Start runs one on free ports of 127.0.0.1, with STARTTLS
// required under a certificate made for the test, any user and password accepted, and recipients
// outside example.com refused with a 550; its HTTP API reads what it received.
//
// Without the mailpit binary (on PATH or in $GOPATH/bin) a test is skipped, except when CI=true,
// where it fails.
package mailpit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"go/build"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Server is a running Mailpit.
type Server struct {
	// SMTPURL is smtp://user:secret@127.0.0.1:PORT; TLS trusts its certificate.
	SMTPURL string
	TLS     *tls.Config
	api     string
}

// Start runs a Mailpit for t, stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mailpit: %v (CI=true, so Mailpit is required)", err)
		}
		t.Skipf("mailpit: %v; go install github.com/axllent/mailpit@v1.33.1", err)
	}
	dir := t.TempDir()
	pool := writeCert(t, dir)
	smtpPort, apiPort := freePort(t), freePort(t)
	cmd := exec.Command(bin,
		"--smtp", fmt.Sprintf("127.0.0.1:%d", smtpPort), "--listen", fmt.Sprintf("127.0.0.1:%d", apiPort),
		"--database", filepath.Join(dir, "mailpit.db"),
		"--smtp-tls-cert", filepath.Join(dir, "cert.pem"), "--smtp-tls-key", filepath.Join(dir, "key.pem"),
		"--smtp-require-starttls", "--smtp-auth-accept-any", "--smtp-disable-rdns",
		"--smtp-allowed-recipients", `@example\.com$`, "--disable-version-check", "--quiet")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("mailpit: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	s := &Server{SMTPURL: fmt.Sprintf("smtp://user:secret@127.0.0.1:%d", smtpPort),
		TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12},
		api: fmt.Sprintf("http://127.0.0.1:%d", apiPort)}
	for i := 0; ; i++ {
		res, err := http.Get(s.api + "/api/v1/info")
		if err == nil {
			res.Body.Close()
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", smtpPort)); err == nil {
				c.Close()
				return s
			}
		}
		if i == 200 {
			t.Fatalf("mailpit did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func binary() (string, error) {
	if p, err := exec.LookPath("mailpit"); err == nil {
		return p, nil
	}
	p := filepath.Join(build.Default.GOPATH, "bin", "mailpit")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no mailpit on PATH or at %s", p)
	}
	return p, nil
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// writeCert writes a self-signed certificate for 127.0.0.1 and its key into dir, and returns a
// pool that trusts it.
func writeCert(t testing.TB, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailpit test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{"cert.pem": {Type: "CERTIFICATE", Bytes: der}, "key.pem": {Type: "PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// Address is a mailbox as Mailpit reports it.
type Address struct {
	Name    string `json:"Name"`
	Address string `json:"Address"`
}

// Message is a message Mailpit received, as its API answers it.
type Message struct {
	ID        string    `json:"ID"`
	MessageID string    `json:"MessageID"`
	From      Address   `json:"From"`
	To        []Address `json:"To"`
	ReplyTo   []Address `json:"ReplyTo"`
	Subject   string    `json:"Subject"`
	Text      string    `json:"Text"`
	HTML      string    `json:"HTML"`
}

// Messages returns every message received, newest first, read in full.
func (s *Server) Messages(t testing.TB) []Message {
	t.Helper()
	var list struct {
		Messages []struct {
			ID string `json:"ID"`
		} `json:"messages"`
	}
	s.get(t, "/api/v1/messages?limit=500", &list)
	out := make([]Message, len(list.Messages))
	for i, m := range list.Messages {
		s.get(t, "/api/v1/message/"+m.ID, &out[i])
	}
	return out
}

func (s *Server) get(t testing.TB, path string, v any) {
	t.Helper()
	res, err := http.Get(s.api + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("mailpit GET %s: %s", path, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
