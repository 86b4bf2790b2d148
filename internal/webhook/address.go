package webhook

import (
	"encoding/binary"
	"net/netip"
)

// nonPublicIPv4 are IPv4 ranges that Go's IsGlobalUnicast and IsPrivate let through but that
// reach no one on the public internet, or reach this host: "this network" (0.0.0.0/8, which
// Linux connects to the local host), carrier-grade NAT (RFC 6598), IETF protocol assignments,
// benchmarking and the reserved class E.
var nonPublicIPv4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// Prefixes of IPv6 forms that carry an IPv4 address: traffic sent to them ends up at that IPv4
// address (through a translator, a tunnel or the host's own stack), so they are judged by it.
var (
	ipv4Compatible  = netip.MustParsePrefix("::/96")           // ::a.b.c.d (RFC 4291, deprecated)
	ipv4Translated  = netip.MustParsePrefix("::ffff:0:0:0/96") // SIIT ::ffff:0:a.b.c.d (RFC 2765)
	nat64WellKnown  = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052
	nat64LocalUse   = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215
	sixToFour       = netip.MustParsePrefix("2002::/16")       // RFC 3056: 2002:AABB:CCDD::
	teredo          = netip.MustParsePrefix("2001::/32")       // RFC 4380
	nat64PrefixLens = []int{48, 56, 64, 96}                    // RFC 6052 lengths inside the local-use /48
)

// public reports whether a is an address on the public internet. An IPv6 address embedding an
// IPv4 one is public only if every IPv4 address it may stand for is.
func public(a netip.Addr) bool {
	if a.Is4In6() {
		a = a.Unmap()
	}
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	if a.Is4() {
		for _, p := range nonPublicIPv4 {
			if p.Contains(a) {
				return false
			}
		}
		return true
	}
	for _, v4 := range embeddedIPv4(a) {
		if !public(v4) {
			return false
		}
	}
	return true
}

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries, by the form it has.
func embeddedIPv4(a netip.Addr) []netip.Addr {
	b := a.As16()
	at := func(i int) netip.Addr { return netip.AddrFrom4([4]byte(b[i : i+4])) }
	switch {
	case ipv4Compatible.Contains(a), ipv4Translated.Contains(a), nat64WellKnown.Contains(a):
		return []netip.Addr{at(12)}
	case nat64LocalUse.Contains(a):
		// The operator picks the prefix length; bits 64-71 are always skipped (RFC 6052 2.2).
		var out []netip.Addr
		for _, n := range nat64PrefixLens {
			var v4 [4]byte
			for i, j := 0, n/8; i < 4; j++ {
				if j == 8 {
					continue
				}
				v4[i] = b[j]
				i++
			}
			out = append(out, netip.AddrFrom4(v4))
		}
		return out
	case sixToFour.Contains(a):
		return []netip.Addr{at(2)}
	case teredo.Contains(a):
		// The server's address in clear, the client's obfuscated: its bits inverted.
		var client [4]byte
		binary.BigEndian.PutUint32(client[:], binary.BigEndian.Uint32(b[12:16])^0xffffffff)
		return []netip.Addr{at(4), netip.AddrFrom4(client)}
	}
	return nil
}
