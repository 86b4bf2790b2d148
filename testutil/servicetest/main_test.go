package servicetest_test

import (
	"os"
	"testing"

	"disburse/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
