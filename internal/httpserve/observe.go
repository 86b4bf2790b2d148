package httpserve

import (
	"time"

	"github.com/gofiber/fiber/v2"
)

// RequestObserver is told of every request answered: its route pattern (such as
// /api/v2/users/:user_id, never the raw path, which would make one series per id), its status
// and how long it took.
type RequestObserver interface {
	ObserveRequest(method, route string, status int, took time.Duration)
}

// Observe returns middleware that reports each request to o. An error from further down is
// turned into its response here, with the app's error handler, so the status reported is the
// one the client gets.
func Observe(o RequestObserver) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		o.ObserveRequest(c.Method(), c.Route().Path, c.Response().StatusCode(), time.Since(start))
		return nil
	}
}
