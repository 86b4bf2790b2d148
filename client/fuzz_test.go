package client

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// FuzzDecode feeds arbitrary answers to every decoder of the client: the error decoder must
// always produce a complete *payouts.Error, and the success decoders must fail cleanly, never
// panic. Plain `go test` runs the seeds: the public samples and error bodies of every shape.
func FuzzDecode(f *testing.F) {
	samples, err := filepath.Glob(filepath.Join("testdata", "public", "*.json"))
	if err != nil || len(samples) == 0 {
		f.Fatalf("no samples: %v", err)
	}
	for _, name := range samples {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(200, b)
	}
	for _, seed := range []struct {
		status int
		body   string
	}{
		{400, `{"error":"invalid-input","message":"bad","fields":{"a":"b","c":["d"],"e":null}}`},
		{400, `{"error":1042,"error_message":"Bad routing number"}`},
		{401, "Unauthorized"},
		{502, "<html>Bad Gateway</html>"},
		{500, ""},
		{200, `{"amount":"12.5"}`},
		{200, `{"created":"2023-13-45T99:99:99"}`},
		{200, `{"id":"1e9","transactions":[{"id":1e3}]}`},
		{200, `{"steps":[{"name":1}],"wallet":{"amount":"-9223372036854775809"}}`},
		{200, `[{"id":null},{}]`},
		{200, `"\ud800"`},
	} {
		f.Add(seed.status, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeError(status, body)
		if e.Status != status || e.Code == "" || e.Message == "" || !bytes.Equal(e.Body, body) {
			t.Errorf("decodeError(%d, %q) = %+v: incomplete", status, body, e)
		}
		outs := []any{
			new(payouts.User), new(payouts.List[payouts.User]), new(payoutMethods), new(payouts.PayoutMethod),
			new(payouts.Transfer), new(payouts.List[payouts.Transfer]), new(payouts.Transaction),
			new(payouts.List[payouts.Transaction]), new(payouts.PayoutLink), new(payouts.List[payouts.PayoutLink]),
			new(payouts.Flow), new(payouts.List[payouts.Flow]), new(payouts.App),
		}
		for _, out := range outs {
			_ = decodeSuccess(body, out) // failing is fine; panicking is not
		}
	})
}
