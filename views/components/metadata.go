package components

import (
	"bytes"
	"encoding/json"

	"github.com/disburse/disburse/payouts"
)

// MetadataEntry is one key of an object's metadata and its value as a person reads it.
type MetadataEntry struct{ Key, Value string }

// MetadataEntries turns metadata into the rows of its table, keys in the order they were stored.
// A string value is shown as the text it is; any other value (number, list, object) as compact
// JSON. Metadata that is a lone string, or that the backend sent malformed, is one row named
// "Value" so nothing it holds is hidden. Nothing or null is no rows.
func MetadataEntries(m payouts.Metadata) []MetadataEntry {
	m = payouts.NormalizeMetadata(m)
	if len(m) == 0 {
		return nil
	}
	if m[0] == '{' {
		if entries, ok := objectEntries(m); ok {
			return entries
		}
	}
	return []MetadataEntry{{Key: "Value", Value: metadataValue(json.RawMessage(m))}}
}

// objectEntries reads a JSON object's members in order; ok is false when m is not one.
func objectEntries(m payouts.Metadata) ([]MetadataEntry, bool) {
	dec := json.NewDecoder(bytes.NewReader(m))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var entries []MetadataEntry
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		entries = append(entries, MetadataEntry{Key: key, Value: metadataValue(value)})
	}
	return entries, true
}

// metadataValue is a JSON value as text: a string unquoted, anything else compacted.
func metadataValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}
