package payouts

import "net/http"

// statusOf is the HTTP status of each error code: the one classification every transport uses.
var statusOf = map[string]int{
	EInvalidInput:       http.StatusBadRequest,
	EInvalidEmail:       http.StatusBadRequest,
	EInvalidPhone:       http.StatusBadRequest,
	EInvalidUsername:    http.StatusBadRequest,
	EUnauthorized:       http.StatusUnauthorized,
	ENotFound:           http.StatusNotFound,
	EForbidden:          http.StatusForbidden,
	EEmailExists:        http.StatusConflict,
	EUsernameExists:     http.StatusConflict,
	EIdempotencyReused:  http.StatusConflict,
	EResourceBusy:       http.StatusConflict,
	ETooLarge:           http.StatusRequestEntityTooLarge,
	EInsufficientFunds:  http.StatusUnprocessableEntity,
	EInvalidTransaction: http.StatusUnprocessableEntity,
	EUserInfoMissing:    http.StatusUnprocessableEntity,
	ETooManyRequests:    http.StatusTooManyRequests,
	EDeliveryFailed:     http.StatusUnprocessableEntity,
	EInternal:           http.StatusInternalServerError,
}

// HTTPStatus is the status the API answers an error code with; 500 for a code it does not know.
func HTTPStatus(code string) int {
	if status, ok := statusOf[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}
