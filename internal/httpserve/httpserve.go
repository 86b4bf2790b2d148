// Package httpserve runs a Fiber app on a listener until a context ends, then shuts it down
// gracefully. Both servers of disburse, the Payout Service and the dashboard, serve through it,
// so both get the fixes of listener.go and the same shutdown.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Serve answers HTTP with app on ln until ctx ends, then stops taking requests, lets those in
// flight finish (up to timeout) and returns nil.
func Serve(ctx context.Context, app *fiber.App, ln net.Listener, timeout time.Duration) error {
	l := newListener(ln)
	errc := make(chan error, 1)
	go func() { errc <- app.Listener(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	l.dropFresh()
	if err := app.ShutdownWithTimeout(timeout); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	// When ctx ended before fasthttp took the listener, its shutdown had nothing to close and
	// the server would start afterwards and never stop: closing the listener ourselves ends it.
	l.Close()
	if err := <-errc; err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
