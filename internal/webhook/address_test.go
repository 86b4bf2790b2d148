package webhook

import (
	"net/netip"
	"testing"
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
