package payouts

import (
	"bytes"
	"encoding/json"
)

// MaxMetadataBytes bounds the metadata stored with an object.
const MaxMetadataBytes = 8 << 10

// Metadata is whatever JSON object, string or null a client attaches to an object, stored and
// echoed verbatim.
type Metadata = json.RawMessage

// ValidateMetadata reports a problem with m, or "" when it may be stored.
func ValidateMetadata(m Metadata) string {
	t := bytes.TrimSpace(m)
	if len(t) == 0 {
		return ""
	}
	if len(t) > MaxMetadataBytes {
		return "must be at most 8 KiB"
	}
	switch t[0] {
	case '{', '"', 'n':
		if !json.Valid(t) {
			return "must be valid JSON"
		}
		return ""
	default:
		return "must be an object, a string or null"
	}
}

// NormalizeMetadata returns m without surrounding space, or nil when it is empty or null.
func NormalizeMetadata(m Metadata) Metadata {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return Metadata(bytes.Clone(t))
}
