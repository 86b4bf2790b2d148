package api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// statusOf is the HTTP status of each error code: the one place the transport decides it.
var statusOf = map[string]int{
	payouts.EInvalidInput:       http.StatusBadRequest,
	payouts.EInvalidEmail:       http.StatusBadRequest,
	payouts.EInvalidPhone:       http.StatusBadRequest,
	payouts.EInvalidUsername:    http.StatusBadRequest,
	payouts.EUnauthorized:       http.StatusUnauthorized,
	payouts.ENotFound:           http.StatusNotFound,
	payouts.EForbidden:          http.StatusForbidden,
	payouts.EEmailExists:        http.StatusConflict,
	payouts.EUsernameExists:     http.StatusConflict,
	payouts.EIdempotencyReused:  http.StatusConflict,
	payouts.EResourceBusy:       http.StatusConflict,
	payouts.ETooLarge:           http.StatusRequestEntityTooLarge,
	payouts.EInsufficientFunds:  http.StatusUnprocessableEntity,
	payouts.EInvalidTransaction: http.StatusUnprocessableEntity,
	payouts.EUserInfoMissing:    http.StatusUnprocessableEntity,
	payouts.ETooManyRequests:    http.StatusTooManyRequests,
	payouts.EInternal:           http.StatusInternalServerError,
}

// authChallenge tells a client without valid credentials how to authenticate.
const authChallenge = `Basic realm="disburse"`

// ErrorHandler answers an error with its status and the API's error body. Expected failures say
// what went wrong; anything else is logged to log and answered with a generic 500 that leaks
// nothing. The API's app uses it, and so may the app it is mounted in, for the errors Fiber
// raises before it knows the path (headers too large, unreadable requests).
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	return (&handler{log: log}).handleError
}

func (h *handler) handleError(c *fiber.Ctx, err error) error {
	status, body := h.describe(c, err)
	if status == http.StatusUnauthorized {
		c.Set(fiber.HeaderWWWAuthenticate, authChallenge)
	}
	return c.Status(status).JSON(body)
}

// describe returns the status and body for err.
func (h *handler) describe(c *fiber.Ctx, err error) (int, *payouts.Error) {
	var fe *fiber.Error
	if errors.As(err, &fe) && fe.Code < http.StatusInternalServerError {
		return fromFiber(c, fe)
	}
	var e *payouts.Error
	if errors.As(err, &e) {
		if status, ok := statusOf[e.Code]; ok && status < http.StatusInternalServerError {
			return status, &payouts.Error{Code: e.Code, Message: e.Message, Fields: e.Fields}
		}
	}
	h.log.ErrorContext(c.UserContext(), "internal error", "method", c.Method(), "path", c.Path(), "err", err)
	return http.StatusInternalServerError, &payouts.Error{Code: payouts.EInternal, Message: "Internal error."}
}

// fromFiber describes the errors Fiber and fasthttp raise themselves: no route, wrong method,
// body or headers too large, an unreadable request. They keep Fiber's status; those without a
// code of their own (405, 408, ...) say invalid-input.
func fromFiber(c *fiber.Ctx, fe *fiber.Error) (int, *payouts.Error) {
	switch fe.Code {
	case fiber.StatusNotFound:
		return fe.Code, payouts.Errorf(payouts.ENotFound, "No endpoint %s %s.", c.Method(), c.Path())
	case fiber.StatusMethodNotAllowed:
		return fe.Code, payouts.Errorf(payouts.EInvalidInput, "%s is not allowed on %s.", c.Method(), c.Path())
	case fiber.StatusRequestEntityTooLarge, fiber.StatusRequestHeaderFieldsTooLarge:
		return fe.Code, payouts.Errorf(payouts.ETooLarge, "The request is too large.")
	case fiber.StatusTooManyRequests:
		return fe.Code, payouts.Errorf(payouts.ETooManyRequests, "Too many requests.")
	}
	return fe.Code, payouts.Errorf(payouts.EInvalidInput, "%s", fe.Message)
}
