package servicetest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// logRecorder is the service's slog.Handler in tests: it keeps the log to show when a test
// fails, and notes every request answered with a 5xx status, which Start's cleanup reports.
type logRecorder struct {
	state *logState
	inner slog.Handler
}

type logState struct {
	mu           sync.Mutex
	buf          bytes.Buffer
	serverErrors []string
}

// Write lets the text handler write into the shared buffer.
func (s *logState) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func newLogRecorder() *logRecorder {
	st := &logState{}
	return &logRecorder{state: st, inner: slog.NewTextHandler(st, &slog.HandlerOptions{Level: slog.LevelDebug})}
}

func (h *logRecorder) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *logRecorder) Handle(ctx context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "status" && a.Value.Kind() == slog.KindInt64 && a.Value.Int64() >= 500 {
			var line strings.Builder
			r.Attrs(func(a slog.Attr) bool {
				fmt.Fprintf(&line, "%s=%v ", a.Key, a.Value)
				return true
			})
			h.state.mu.Lock()
			h.state.serverErrors = append(h.state.serverErrors, line.String())
			h.state.mu.Unlock()
			return false
		}
		return true
	})
	return h.inner.Handle(ctx, r)
}

func (h *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logRecorder{state: h.state, inner: h.inner.WithAttrs(attrs)}
}

func (h *logRecorder) WithGroup(name string) slog.Handler {
	return &logRecorder{state: h.state, inner: h.inner.WithGroup(name)}
}

// check fails t for every 5xx answer, and shows the end of the log when t failed.
func (h *logRecorder) check(t testing.TB) {
	t.Helper()
	h.state.mu.Lock()
	if n := len(h.state.serverErrors); n > 0 {
		t.Errorf("servicetest: %d requests were answered with a 5xx status; bad input must get a 4xx:\n%s",
			n, strings.Join(h.state.serverErrors, "\n"))
	}
	h.state.mu.Unlock()
	h.state.showIfFailed(t, "service")
}

// showIfFailed logs the end of the log kept when t failed.
func (s *logState) showIfFailed(t testing.TB, name string) {
	t.Helper()
	if !t.Failed() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	const max = 32 << 10
	log := s.buf.Bytes()
	if len(log) > max {
		log = log[len(log)-max:]
	}
	t.Logf("servicetest: %s log (last %d bytes):\n%s", name, len(log), log)
}

// KeptLog is a logger for a part a test runs beside the service (the dashboard's handlers,
// say): its log is kept and, like the service's, shown when the test fails.
func KeptLog(t testing.TB, name string) *slog.Logger {
	st := &logState{}
	t.Cleanup(func() { st.showIfFailed(t, name) })
	return slog.New(slog.NewTextHandler(st, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
