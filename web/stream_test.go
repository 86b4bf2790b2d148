package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
)

// streamServer serves one public route whose handler streams with write, on a real connection.
func streamServer(t *testing.T, writeTimeout time.Duration, write func(io.Writer) error) string {
	t.Helper()
	store, err := dashstore.Open(context.Background(), filepath.Join(t.TempDir(), "dashboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := New(Config{Store: store, WriteTimeout: writeTimeout, Password: PasswordParams{Memory: 1024, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Register([]Route{{Method: fiber.MethodGet, Path: "/download", Perm: PermPublic, Handler: func(c *fiber.Ctx) error {
		return s.Stream(c, "text/plain; charset=utf-8", "rows.txt", write)
	}}}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { stop(); <-served })
	return "http://" + ln.Addr().String() + "/download"
}

// download reads the whole answer to a GET of url; err is a failure to get or read it.
func download(t *testing.T, url string) (*http.Response, string, error) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	res, err := hc.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, string(b), err
}

func TestStreamOutlastsTheWriteTimeout(t *testing.T) {
	// Ten rows, a tenth of a second apart: five times the write timeout in all.
	url := streamServer(t, 200*time.Millisecond, func(w io.Writer) error {
		for i := range 10 {
			time.Sleep(100 * time.Millisecond)
			if _, err := fmt.Fprintf(w, "row %d\n", i); err != nil {
				return err
			}
		}
		return nil
	})
	res, body, err := download(t, url)
	if err != nil {
		t.Fatalf("reading the download: %v (got %q)", err, body)
	}
	if strings.Count(body, "row ") != 10 {
		t.Errorf("body %q, want 10 rows", body)
	}
	if cd := res.Header.Get("Content-Disposition"); cd != "attachment; filename=rows.txt" {
		t.Errorf("Content-Disposition %q", cd)
	}
}

func TestStreamFailureBreaksTheDownload(t *testing.T) {
	url := streamServer(t, 0, func(w io.Writer) error {
		for i := range 1000 { // more than a buffer, so the headers and some rows go out first
			fmt.Fprintf(w, "row %d\n", i)
		}
		return errors.New("the service went away")
	})
	// Cut before or after the headers went out: either way no whole file arrives.
	if _, body, err := download(t, url); err == nil {
		t.Fatalf("the download ended cleanly after a failure: %q", body)
	}
}
