package web

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func TestStatusOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"field problems", payouts.FieldError("amount", "must be greater than zero"), fiber.StatusUnprocessableEntity},
		{"bad email", payouts.Errorf(payouts.EInvalidEmail, "no"), fiber.StatusUnprocessableEntity},
		{"not found", payouts.Errorf(payouts.ENotFound, "no"), fiber.StatusNotFound},
		{"conflict", payouts.Errorf(payouts.EIdempotencyReused, "no"), fiber.StatusConflict},
		{"insufficient funds", payouts.Errorf(payouts.EInsufficientFunds, "no"), fiber.StatusUnprocessableEntity},
		{"rate limited", payouts.Errorf(payouts.ETooManyRequests, "no"), fiber.StatusTooManyRequests},
		{"dashboard's credentials refused", payouts.Errorf(payouts.EUnauthorized, "no"), fiber.StatusBadGateway},
		{"service unreachable", &url.Error{Op: "Get", URL: "http://x", Err: errors.New("refused")}, fiber.StatusBadGateway},
		{"fiber error", fiber.NewError(fiber.StatusForbidden, "no"), fiber.StatusForbidden},
		{"wrapped", fmt.Errorf("load: %w", payouts.Errorf(payouts.ENotFound, "no")), fiber.StatusNotFound},
		{"bug", errors.New("nil map"), fiber.StatusInternalServerError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusOf(tc.err); got != tc.want {
				t.Errorf("StatusOf(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}
