package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/disburse/disburse/internal/service"
)

// Every IPv6 form that carries an IPv4 address is judged by that address, at registration
// (CheckURL) and when the dialer is about to connect to what DNS answered (refusePrivate).
func TestPublicJudgesEmbeddedIPv4(t *testing.T) {
	tests := []struct {
		name, addr string
		public     bool
	}{
		{"public IPv4", "93.184.216.34", true},
		{"loopback", "127.0.0.1", false},
		{"private", "10.1.2.3", false},
		{"carrier-grade NAT", "100.64.0.1", false},
		{"this network", "0.1.2.3", false},
		{"metadata", "169.254.169.254", false},
		{"reserved class E", "240.0.0.1", false},
		{"public IPv6", "2606:4700:4700::1111", true},
		{"IPv6 loopback", "::1", false},
		{"IPv6 unique local", "fd00::1", false},
		{"IPv6 link-local", "fe80::1", false},
		{"mapped loopback", "::ffff:127.0.0.1", false},
		{"mapped public", "::ffff:93.184.216.34", true},
		{"compatible loopback", "::127.0.0.1", false},
		{"compatible private", "::10.0.0.1", false},
		{"compatible public", "::93.184.216.34", true},
		{"translated loopback", "::ffff:0:127.0.0.1", false},
		{"NAT64 loopback", "64:ff9b::7f00:1", false},
		{"NAT64 metadata", "64:ff9b::169.254.169.254", false},
		{"NAT64 public", "64:ff9b::93.184.216.34", true},
		{"NAT64 local-use /96 loopback", "64:ff9b:1::7f00:1", false},
		{"NAT64 local-use /48 loopback", "64:ff9b:1:7f00:0:100::", false},
		{"NAT64 local-use /64 private", "64:ff9b:1:0:a:a00:1:0", false},
		{"6to4 loopback", "2002:7f00:1::", false},
		{"6to4 private", "2002:c0a8:101::1", false},
		{"6to4 public", "2002:5db8:d822::1", true},
		{"Teredo client loopback", "2001:0:5db8:d822:0:0:80ff:fffe", false},
		{"Teredo client private", "2001:0:5db8:d822::f5ff:fffe", false},
		{"Teredo public", "2001:0:5db8:d822::a247:27dd", true},
		{"Teredo server loopback", "2001:0:7f00:1::a247:27dd", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			if got := public(a); got != tt.public {
				t.Fatalf("public(%s) = %v, want %v", a, got, tt.public)
			}
			if err := New(Config{}).CheckURL("http://" + netip.AddrPortFrom(a, 80).String() + "/in"); (err == nil) != tt.public {
				t.Fatalf("CheckURL: %v, want ok %v", err, tt.public)
			}
			if err := refusePrivate("tcp6", netip.AddrPortFrom(a, 443).String(), nil); (err == nil) != tt.public {
				t.Fatalf("refusePrivate at connect time: %v, want ok %v", err, tt.public)
			}
		})
	}
}

// ipSpellings are IPv4 addresses written the ways some resolver or URL parser reads as an
// address (inet_aton's short, decimal, octal and hexadecimal forms, a trailing dot, the WHATWG
// URL host parser's), or that IDNA, which net/http applies to a host before it dials, maps to a
// dotted quad (ideographic and fullwidth full stops, fullwidth digits).
var ipSpellings = []struct{ name, host string }{
	{"two parts", "127.1"},
	{"three parts", "127.0.1"},
	{"one decimal number", "2130706433"},
	{"metadata as one number", "2852039166"},
	{"hexadecimal", "0x7f000001"},
	{"uppercase hexadecimal", "0X7F000001"},
	{"hexadecimal parts", "0x7f.0x0.0x0.0x1"},
	{"hexadecimal of nothing", "0x"},
	{"octal", "0177.0.0.1"},
	{"leading zero", "127.0.0.01"},
	{"trailing dot", "127.0.0.1."},
	{"five parts", "1.2.3.4.5"},
	{"public in hexadecimal", "0x5db8d822"},
	{"a name ending in a number", "hooks.example.123"},
	{"ideographic full stops", "127。0。0。1"},
	{"fullwidth full stops", "127．0．0．1"},
	{"halfwidth ideographic full stops", "127｡0｡0｡1"},
	{"fullwidth digits", "１２７.０.０.１"},
	{"fullwidth public", "９３.１８４.２１６.３４"},
}

// An IPv4 address spelled any way but a.b.c.d in decimal is refused, in sandbox mode too (where
// loopback is allowed): at registration (CheckURL), and at delivery before any name is looked up
// or any connection made, for an endpoint registered before the rule.
func TestIPSpellingsRefused(t *testing.T) {
	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(receiver.Close)
	port := receiver.Listener.Addr().(*net.TCPAddr).Port
	for _, sandbox := range []bool{false, true} {
		sender := New(Config{AllowPrivate: sandbox})
		for _, tt := range ipSpellings {
			t.Run(fmt.Sprintf("%s/sandbox %v", tt.name, sandbox), func(t *testing.T) {
				u := fmt.Sprintf("http://%s:%d/in", tt.host, port)
				if err := sender.CheckURL(u); err == nil {
					t.Fatalf("CheckURL(%s) accepted it", u)
				}
				res := sender.Send(context.Background(), service.WebhookMessage{URL: u, ID: "e1", Body: []byte(`{}`)})
				var lookup *net.DNSError
				if res.Err == nil || errors.As(res.Err, &lookup) || hits.Load() != 0 {
					t.Fatalf("delivery to %s: %+v, %d requests received; want refused before any lookup", u, res, hits.Load())
				}
				if !errors.Is(res.Err, errIPSpelling) {
					t.Fatalf("delivery to %s: %v, want the spelling refused", u, res.Err)
				}
			})
		}
	}
	// The rule leaves sandbox mode's loopback, canonically written, as it was.
	for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
		u := fmt.Sprintf("http://%s:%d/in", host, port)
		if err := New(Config{AllowPrivate: true}).CheckURL(u); err != nil {
			t.Errorf("sandbox CheckURL(%s): %v", u, err)
		}
	}
	res := New(Config{AllowPrivate: true}).Send(context.Background(), service.WebhookMessage{URL: receiver.URL + "/in", ID: "e1", Body: []byte(`{}`)})
	if !res.OK() || hits.Load() != 1 {
		t.Fatalf("sandbox delivery to %s: %+v, %d requests; want delivered", receiver.URL, res, hits.Load())
	}
}
