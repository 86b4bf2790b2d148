package httpserve

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// TestServeStopsWhenCanceledEarly cancels before the server has even started: Serve must still
// return rather than start serving afterwards.
func TestServeStopsWhenCanceledEarly(t *testing.T) {
	for i := 0; i < 20; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, fiber.New(fiber.Config{DisableStartupMessage: true}), ln, time.Second) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Serve did not return after its context ended")
		}
	}
}
