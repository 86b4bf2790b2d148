package payouts

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Time is a timestamp on the wire: written as RFC 3339 in UTC, read with or without a zone (a
// zone-less timestamp is UTC, as the public service sends them).
type Time struct{ time.Time }

// NewTime wraps t, in UTC.
func NewTime(t time.Time) Time { return Time{t.UTC()} }

// zonedLayouts are RFC 3339 and the near misses servers write: a space for the T, and offsets
// without a colon.
var zonedLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999 Z07:00",
	"2006-01-02 15:04:05.999999999 Z0700",
}

var zonelessLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02",
}

func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(strconv.Quote(t.UTC().Format(time.RFC3339Nano))), nil
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*t = Time{}
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return &time.ParseError{Value: string(b), Message: ": timestamp must be a string"}
	}
	parsed, err := ParseTime(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// ParseTime reads an RFC 3339 timestamp, or one without a zone taken as UTC.
func ParseTime(s string) (Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range zonedLayouts {
		if tt, err := time.Parse(layout, s); err == nil {
			return Time{tt.UTC()}, nil
		}
	}
	var firstErr error
	for _, layout := range zonelessLayouts {
		tt, err := time.ParseInLocation(layout, s, time.UTC)
		if err == nil {
			return Time{tt}, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return Time{}, firstErr
}

func timeParseDate(s string) (time.Time, error) { return time.Parse("2006-01-02", s) }
