package servicetest_test

import (
	"os"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
