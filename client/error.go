package client

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/disburse/disburse/payouts"
)

// errorBody is every shape of error body the client understands: ours ({"error": code,
// "message": text, "fields": {...}}) and the public service's, which may put the text or a
// number in "error", or the text in "error_message".
type errorBody struct {
	Message      json.RawMessage `json:"message"`
	Error        json.RawMessage `json:"error"`
	ErrorMessage json.RawMessage `json:"error_message"`
	Code         json.RawMessage `json:"code"`
	Fields       json.RawMessage `json:"fields"`
}

// decodeError turns a non-2xx answer into a *payouts.Error that always has a status, a code and
// a message, and keeps the raw body. The message is the first of: "message"; "error" when it is
// text for people; "error_message"; "error" when it is a bare code or number; a short plain-text
// body; the status text. The code is "error" or "code" when either looks like a code, otherwise
// the code of the status (see codeForStatus).
func decodeError(status int, body []byte) *payouts.Error {
	e := &payouts.Error{Status: status, Body: body}
	var b errorBody
	if json.Unmarshal(body, &b) == nil {
		errText := scalarText(b.Error)
		for _, candidate := range []string{scalarText(b.Code), errText} {
			if e.Code == "" && looksLikeCode(candidate) {
				e.Code = candidate
			}
		}
		human := errText
		if looksLikeCode(errText) || isNumber(b.Error) {
			human = ""
		}
		e.Message = firstNonEmpty(scalarText(b.Message), human, scalarText(b.ErrorMessage), errText)
		e.Fields = fieldProblems(b.Fields)
	}
	if e.Code == "" {
		e.Code = codeForStatus(status)
	}
	if e.Message == "" {
		e.Message = plainText(body)
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if e.Message == "" {
		e.Message = "unexpected answer"
	}
	return e
}

// codeForStatus is the code of an error answer that named none.
func codeForStatus(status int) string {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return payouts.EUnauthorized
	case status == http.StatusNotFound, status == http.StatusGone:
		return payouts.ENotFound
	case status == http.StatusConflict:
		return payouts.EResourceBusy
	case status == http.StatusRequestEntityTooLarge:
		return payouts.ETooLarge
	case status == http.StatusUnprocessableEntity:
		return payouts.EInvalidTransaction
	case status == http.StatusTooManyRequests:
		return payouts.ETooManyRequests
	case status >= 400 && status < 500:
		return payouts.EInvalidInput
	default:
		return payouts.EInternal
	}
}

// scalarText is a JSON string's value or a JSON number's digits; "" for anything else.
func scalarText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.TrimSpace(s)
		}
		return ""
	}
	if isNumber(raw) {
		return string(raw)
	}
	return ""
}

func isNumber(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return false
	}
	var n json.Number
	return json.Unmarshal(raw, &n) == nil
}

// looksLikeCode reports whether s is a machine code such as "not-found" or "invalid_request":
// lower-case letters, digits, '-', '_' and '.', with at least one letter.
func looksLikeCode(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	letter := false
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
			letter = true
		case ('0' <= r && r <= '9') || r == '-' || r == '_' || r == '.':
		default:
			return false
		}
	}
	return letter
}

// fieldProblems reads "fields" as a map of field to problem; a problem may be a string, a list
// of strings (joined) or anything else (kept as its JSON text).
func fieldProblems(raw json.RawMessage) map[string]string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	fields := make(map[string]string, len(m))
	for name, v := range m {
		if s := scalarText(v); s != "" {
			fields[name] = s
			continue
		}
		var list []string
		if json.Unmarshal(v, &list) == nil {
			fields[name] = strings.Join(list, "; ")
			continue
		}
		fields[name] = string(bytes.TrimSpace(v))
	}
	return fields
}

// plainText returns a short plain-text body as a message, and "" for anything else (HTML pages
// of proxies, JSON, binary), which the status text describes better.
func plainText(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" || len(s) > 200 || !utf8.ValidString(s) || strings.ContainsAny(s[:1], "<{[") {
		return ""
	}
	for _, r := range s {
		if r < ' ' && r != '\t' && r != '\n' && r != '\r' {
			return ""
		}
	}
	return s
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
