package service_test

import (
	"os"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// TestMain stops the PostgreSQL cluster the crash-point tests start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
