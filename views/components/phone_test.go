package components

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestPhone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phone payouts.Phone
		want  string
	}{
		{"US", payouts.Phone{CountryCode: "1", PhoneNumber: "4155132552"}, "+1 415-513-2552"},
		{"UK", payouts.Phone{CountryCode: "44", PhoneNumber: "2079460958"}, "+44 20 7946 0958"},
		{"Mexico", payouts.Phone{CountryCode: "52", PhoneNumber: "5512345678"}, "+52 55 1234 5678"},
		{"unreadable stays as kept", payouts.Phone{CountryCode: "999", PhoneNumber: "12"}, "+999 12"},
		{"none", payouts.Phone{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Phone(tc.phone); got != tc.want {
				t.Errorf("Phone(%+v) = %q, want %q", tc.phone, got, tc.want)
			}
		})
	}
}
