package payouts

import (
	"net/http"
	"testing"
)

func TestHTTPStatus(t *testing.T) {
	tests := []struct {
		code string
		want int
	}{
		{EInvalidInput, http.StatusBadRequest},
		{EInvalidEmail, http.StatusBadRequest},
		{EUnauthorized, http.StatusUnauthorized},
		{ENotFound, http.StatusNotFound},
		{EIdempotencyReused, http.StatusConflict},
		{EInsufficientFunds, http.StatusUnprocessableEntity},
		{ETooLarge, http.StatusRequestEntityTooLarge},
		{ETooManyRequests, http.StatusTooManyRequests},
		{EInternal, http.StatusInternalServerError},
		{"no-such-code", http.StatusInternalServerError},
		{"", http.StatusInternalServerError},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			if got := HTTPStatus(tc.code); got != tc.want {
				t.Errorf("HTTPStatus(%q) = %d, want %d", tc.code, got, tc.want)
			}
		})
	}
}
