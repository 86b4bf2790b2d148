package payouts

import (
	"errors"
	"fmt"
)

// Error codes of the /v2 API. Transports map each code to an HTTP status in one place.
const (
	EInvalidInput       = "invalid-input"
	EInvalidEmail       = "invalid-email"
	EInvalidPhone       = "invalid-phone-number"
	EInvalidUsername    = "invalid-username"
	EEmailExists        = "auth-email-already-exists"
	EUsernameExists     = "auth-username-already-exists"
	EInsufficientFunds  = "transaction-insufficient-funds"
	EInvalidTransaction = "invalid-transaction"
	EUserInfoMissing    = "user-info-missing"
	ENotFound           = "not-found"
	// EForbidden is ours: credentials that are valid but of the wrong kind for the endpoint.
	EForbidden         = "forbidden"
	EUnauthorized      = "unauthorized"
	EIdempotencyReused = "idempotency-key-reused"
	EResourceBusy      = "resource-busy"
	EInternal          = "internal"
	// ETooLarge is ours: API.md names the 413 status but no code for it.
	ETooLarge = "request-too-large"
	// ETooManyRequests is ours, for rate limits (429).
	ETooManyRequests = "too-many-requests"
	// EDeliveryFailed is ours: the message gateway did not take a message (422, with the
	// address's field).
	EDeliveryFailed = "delivery-failed"
)

// Error is an expected failure: a code from the list above, a message a person can read and, for
// validation failures, a problem per field. Status and Body are filled in only by the client,
// which keeps what the server answered.
type Error struct {
	Code    string            `json:"error"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`

	Status int    `json:"-"` // HTTP status, when the error came over HTTP
	Body   []byte `json:"-"` // raw response body, when the error came over HTTP
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("disburse: %d %s: %s", e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("disburse: %s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError returns an invalid-input error naming one field.
func FieldError(field, problem string) *Error {
	return &Error{Code: EInvalidInput, Message: field + ": " + problem, Fields: map[string]string{field: problem}}
}

// ErrorCode returns the code of err, EInternal for errors that are not *Error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EInternal
	}
}

// ErrorMessage returns the human message of err; internal errors never leak their text.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return "Internal error."
	}
}

// Problems collects field problems while validating a request, so that one answer names all of
// them rather than the first.
type Problems map[string]string

// Add records a problem for field unless one is already recorded.
func (p Problems) Add(field, problem string) {
	if _, ok := p[field]; !ok {
		p[field] = problem
	}
}

// Err returns nil when there are no problems, otherwise an invalid-input *Error naming them all.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	msg := "invalid request"
	if len(p) == 1 {
		for f, pr := range p {
			msg = f + ": " + pr
		}
	}
	return &Error{Code: EInvalidInput, Message: msg, Fields: map[string]string(p)}
}
