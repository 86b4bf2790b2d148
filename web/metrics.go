package web

import "github.com/disburse/disburse/internal/httpserve"

// Metrics observes the dashboard: every request, and every failed sign-in.
type Metrics interface {
	httpserve.RequestObserver
	LoginFailed()
}
