package webhook

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// errIPSpelling is what a host answers that is taken for an IPv4 address but is not written as
// one in a.b.c.d.
var errIPSpelling = errors.New("must not be an IPv4 address written other than as four decimal numbers a.b.c.d")

// dialedHost is host as the sender dials it (net/http maps a host that is not ASCII through
// IDNA first, so 127。0。0。1 and fullwidth digits become 127.0.0.1), in lower case. It refuses a
// host that is taken for an IPv4 address unless it is written a.b.c.d in decimal: resolvers read
// 127.1, 2130706433, 0x7f000001 and 0177.0.0.1 as addresses (inet_aton) and a trailing dot is
// dropped, so a spelling other than a.b.c.d would be judged as a name here and reach an address
// there. A host is taken for an IPv4 address, as the WHATWG URL parser takes it, when its last
// label is a number; no top-level domain is one. An IPv6 literal must be one netip reads.
func dialedHost(host string) (string, error) {
	if strings.Contains(host, ":") { // only an IPv6 literal has colons in a URL's host
		if _, err := netip.ParseAddr(host); err != nil {
			return "", errors.New("must have a valid IPv6 address in brackets")
		}
		return host, nil
	}
	name := host
	for _, r := range host {
		if r >= 0x80 {
			ascii, err := idna.Lookup.ToASCII(host)
			if err != nil {
				return "", errors.New("must have a valid host name")
			}
			name = ascii
			break
		}
	}
	name = strings.ToLower(name)
	if endsInNumber(name) {
		if a, err := netip.ParseAddr(host); err != nil || !a.Is4() || a.String() != host {
			return "", errIPSpelling
		}
	}
	return name, nil
}

// endsInNumber reports whether a host name's last label (a trailing dot aside) is a number in
// decimal, octal or 0x hexadecimal: the WHATWG URL parser's test for an IPv4 host.
func endsInNumber(name string) bool {
	name = strings.TrimSuffix(name, ".")
	last := name[strings.LastIndex(name, ".")+1:]
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

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
