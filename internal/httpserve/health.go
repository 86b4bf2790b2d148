package httpserve

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
)

// The probes of a load balancer or orchestrator, which both programs serve at /healthz and
// /readyz on their public listener.

// Healthz answers 200 while the process serves at all.
func Healthz(c *fiber.Ctx) error { return c.SendString("ok\n") }

// Readyz answers 200 only when ready returns nil (database reachable, schema up to date,
// workers running), 503 otherwise. The reason goes to the log, not to the public answer.
func Readyz(ready func(context.Context) error, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 5*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			log.Warn("not ready", "err", err)
			return c.Status(fiber.StatusServiceUnavailable).SendString("not ready\n")
		}
		return c.SendString("ready\n")
	}
}
