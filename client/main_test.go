package client_test

import (
	"os"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// TestMain stops the PostgreSQL cluster the contract tests started, if any.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
