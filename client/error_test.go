package client

import (
	"maps"
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestDecodeError(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		code    string
		message string
		fields  map[string]string
	}{
		{"ours", 404, `{"error":"not-found","message":"No such user."}`,
			payouts.ENotFound, "No such user.", nil},
		{"ours with fields", 400, `{"error":"invalid-input","message":"invalid request","fields":{"email":"required","amount":"must be positive"}}`,
			payouts.EInvalidInput, "invalid request", map[string]string{"email": "required", "amount": "must be positive"}},
		{"insufficient funds", 422, `{"error":"transaction-insufficient-funds","message":"The app wallet holds $1.00."}`,
			payouts.EInsufficientFunds, "The app wallet holds $1.00.", nil},
		{"text in error", 400, `{"error":"Phone number is invalid"}`,
			payouts.EInvalidInput, "Phone number is invalid", nil},
		{"number in error", 500, `{"error":1042}`,
			payouts.EInternal, "1042", nil},
		{"number in error, text in error_message", 400, `{"error":1042,"error_message":"Bad routing number"}`,
			payouts.EInvalidInput, "Bad routing number", nil},
		{"code in error, text in error_message", 409, `{"error":"idempotency-key-reused","error_message":"Key used with another body"}`,
			payouts.EIdempotencyReused, "Key used with another body", nil},
		{"bare code", 401, `{"error":"unauthorized"}`,
			payouts.EUnauthorized, "unauthorized", nil},
		{"message wins over error text", 400, `{"message":"Email is taken","error":"Conflict","error_message":"x"}`,
			payouts.EInvalidInput, "Email is taken", nil},
		{"code field", 400, `{"code":"invalid-email","message":"Bad email"}`,
			payouts.EInvalidEmail, "Bad email", nil},
		{"fields as lists and other values", 400, `{"error":"invalid-input","fields":{"a":["too short","not digits"],"b":3,"c":{"x":1}}}`,
			payouts.EInvalidInput, "invalid-input", map[string]string{"a": "too short; not digits", "b": "3", "c": `{"x":1}`}},
		{"nulls", 403, `{"error":null,"message":null,"fields":null}`,
			payouts.EUnauthorized, "Forbidden", nil},
		{"plain text 401", 401, "Unauthorized\n",
			payouts.EUnauthorized, "Unauthorized", nil},
		{"html from a proxy", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>",
			payouts.EInternal, "Bad Gateway", nil},
		{"empty 404", 404, "",
			payouts.ENotFound, "Not Found", nil},
		{"empty 413", 413, "",
			payouts.ETooLarge, "Request Entity Too Large", nil},
		{"empty 429", 429, "",
			payouts.ETooManyRequests, "Too Many Requests", nil},
		{"empty 409", 409, "",
			payouts.EResourceBusy, "Conflict", nil},
		{"empty 422", 422, "",
			payouts.EInvalidTransaction, "Unprocessable Entity", nil},
		{"empty 418", 418, "",
			payouts.EInvalidInput, "I'm a teapot", nil},
		{"empty 503", 503, "",
			payouts.EInternal, "Service Unavailable", nil},
		{"unknown status", 599, "",
			payouts.EInternal, "unexpected answer", nil},
		{"json array", 400, `["bad"]`,
			payouts.EInvalidInput, "Bad Request", nil},
		{"long text", 500, strings.Repeat("x", 300),
			payouts.EInternal, "Internal Server Error", nil},
		{"binary", 500, "\x00\x01\x02",
			payouts.EInternal, "Internal Server Error", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := decodeError(tt.status, []byte(tt.body))
			if e.Status != tt.status || e.Code != tt.code || e.Message != tt.message {
				t.Errorf("decodeError = %d %q %q, want %d %q %q", e.Status, e.Code, e.Message, tt.status, tt.code, tt.message)
			}
			if !maps.Equal(e.Fields, tt.fields) {
				t.Errorf("fields = %v, want %v", e.Fields, tt.fields)
			}
			if string(e.Body) != tt.body {
				t.Errorf("body = %q, want the raw %q", e.Body, tt.body)
			}
			if !strings.Contains(e.Error(), tt.code) {
				t.Errorf("Error() = %q lacks the code", e.Error())
			}
		})
	}
}
