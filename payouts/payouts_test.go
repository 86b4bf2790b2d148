package payouts

import (
	"encoding/json"
	"testing"
)

func TestMoneyJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    Money
		wantErr bool
	}{
		{`1234`, 1234, false},
		{`"1234"`, 1234, false},
		{`" 12 "`, 12, false},
		{`-5`, -5, false},
		{`1000.0`, 1000, false},
		{`"1000.00"`, 1000, false},
		{`1e3`, 1000, false},
		{`""`, 0, false},
		{`null`, 0, false},
		{`10.5`, 0, true},
		{`"abc"`, 0, true},
		{`9223372036854775808`, 0, true},
		{`1e30`, 0, true},
		{`1e999999999`, 0, true},
		{`true`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var m Money
			err := json.Unmarshal([]byte(tc.in), &m)
			if (err != nil) != tc.wantErr || (!tc.wantErr && m != tc.want) {
				t.Fatalf("Unmarshal(%s) = %d, %v; want %d, error %v", tc.in, m, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestMoneyFormatAndParse(t *testing.T) {
	tests := []struct {
		cents Money
		text  string
	}{
		{0, "$0.00"}, {5, "$0.05"}, {123456, "$1,234.56"}, {-250, "-$2.50"}, {100000000, "$1,000,000.00"},
		{-9223372036854775808, "-$92,233,720,368,547,758.08"},
	}
	for _, tc := range tests {
		if got := tc.cents.String(); got != tc.text {
			t.Errorf("%d.String() = %q, want %q", tc.cents, got, tc.text)
		}
	}
	parse := []struct {
		in      string
		want    Money
		wantErr bool
	}{
		{"12", 1200, false}, {"12.3", 1230, false}, {"$1,234.56", 123456, false}, {"-5.00", -500, false},
		{".5", 50, false}, {"12.345", 0, true}, {"", 0, true}, {"1.", 0, true}, {"abc", 0, true},
		{"92233720368547758.07", 0, true}, {"1e3", 0, true},
	}
	for _, tc := range parse {
		got, err := ParseDollars(tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("ParseDollars(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, in := range []string{"2023-05-01T12:34:56Z", "2023-05-01T12:34:56.789+00:00", "2023-05-01 12:34:56.789+00:00",
		"2023-05-01T12:34:56+0000", "2023-05-01T12:34:56", "2023-05-01 12:34:56.123456", "2023-05-01T14:34:56+02:00"} {
		got, err := ParseTime(in)
		if err != nil || got.Hour() != 12 || got.Location().String() != "UTC" {
			t.Errorf("ParseTime(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseTime("yesterday"); err == nil {
		t.Error("ParseTime accepted prose")
	}
}

func TestValidRoutingNumber(t *testing.T) {
	tests := map[string]bool{"011000015": true, "021000021": true, "011000016": false, "01100001": false,
		"000000000": false, "01100001a": false}
	for in, want := range tests {
		if got := ValidRoutingNumber(in); got != want {
			t.Errorf("ValidRoutingNumber(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestStatusTransitions(t *testing.T) {
	tests := []struct {
		from, to TransferStatus
		ok       bool
	}{
		{TransferCreated, TransferPending, true}, {TransferPending, TransferCompleted, true},
		{TransferPending, TransferFailed, true}, {TransferFlagged, TransferPending, true},
		{TransferCompleted, TransferFailed, true}, {TransferFailed, TransferPending, false},
		{TransferCompleted, TransferPending, false}, {TransferFailed, TransferCompleted, false},
	}
	for _, tc := range tests {
		if got := tc.from.CanBecome(tc.to); got != tc.ok {
			t.Errorf("%s -> %s allowed = %v, want %v", tc.from, tc.to, got, tc.ok)
		}
	}
	if LinkClaimed.Open() || !LinkDelivered.Open() || !LinkDelivered.CanBecome(LinkCanceled) || LinkClaimed.CanBecome(LinkCanceled) {
		t.Error("payout link transitions are wrong")
	}
}

func TestStepJSON(t *testing.T) {
	var steps []Step
	if err := json.Unmarshal([]byte(`["payout", {"name": "redirect", "redirect_url": "https://x.test"}]`), &steps); err != nil {
		t.Fatal(err)
	}
	if steps[0].Name != "payout" || steps[1].RedirectURL != "https://x.test" {
		t.Fatalf("steps = %+v", steps)
	}
	b, _ := json.Marshal(steps)
	if string(b) != `["payout",{"name":"redirect","redirect_url":"https://x.test"}]` {
		t.Fatalf("marshal = %s", b)
	}
	if err := json.Unmarshal([]byte(`[3]`), &steps); err == nil {
		t.Fatal("a number is not a step")
	}
}
