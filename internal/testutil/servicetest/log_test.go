package servicetest

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// recordingTB keeps what check reports instead of failing the real test.
type recordingTB struct {
	testing.TB
	errors, logs []string
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recordingTB) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }
func (r *recordingTB) Failed() bool              { return len(r.errors) > 0 }

func TestLogRecorderReportsServerErrors(t *testing.T) {
	tests := []struct {
		name    string
		log     func(*slog.Logger)
		reports bool
	}{
		{"4xx only", func(l *slog.Logger) {
			l.Info("request", "status", 404)
			l.Info("request", "status", 413)
		}, false},
		{"a 500", func(l *slog.Logger) { l.Error("request", "path", "/api/v2/users", "status", 500) }, true},
		{"a 503 among 200s", func(l *slog.Logger) {
			l.Info("request", "status", 200)
			l.Error("request", "status", 503)
		}, true},
		{"an error without a status", func(l *slog.Logger) { l.Error("notifier failed") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newLogRecorder()
			tt.log(slog.New(rec).With("component", "api"))
			tb := &recordingTB{TB: t}
			rec.check(tb)
			if got := len(tb.errors) > 0; got != tt.reports {
				t.Fatalf("reported %v, want %v: %q", got, tt.reports, tb.errors)
			}
			if tt.reports {
				if !strings.Contains(tb.errors[0], "status=5") {
					t.Errorf("report %q does not show the request", tb.errors[0])
				}
				if len(tb.logs) == 0 || !strings.Contains(tb.logs[0], "component=api") {
					t.Errorf("the log was not shown on failure: %q", tb.logs)
				}
			}
		})
	}
}
