package httpserve

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Proxies are the reverse proxies whose client-address header is believed.
type Proxies struct {
	header  string
	trusted []*net.IPNet
}

// NewProxies trusts header (such as X-Forwarded-For) when it comes from one of addrs (IPs or
// CIDR ranges). With no header or no addresses, every request is its peer's address.
func NewProxies(header string, addrs []string) (*Proxies, error) {
	p := &Proxies{header: header}
	for _, a := range addrs {
		n, err := parseIPOrCIDR(a)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", a, err)
		}
		p.trusted = append(p.trusted, n)
	}
	return p, nil
}

func parseIPOrCIDR(s string) (*net.IPNet, error) {
	if strings.Contains(s, "/") {
		_, n, err := net.ParseCIDR(s)
		return n, err
	}
	ip := net.ParseIP(s)
	if ip == nil {
		return nil, errors.New("not an IP address or CIDR range")
	}
	bits := 32
	if ip.To4() == nil {
		bits = 128
	} else {
		ip = ip.To4()
	}
	return &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}, nil
}

func (p *Proxies) isTrusted(ip net.IP) bool {
	for _, n := range p.trusted {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// ClientIP is the address of the person at the other end. Only a trusted proxy's header is
// believed, and it is read from the right: each trusted proxy appends the address it saw, so
// the first untrusted address from the right is the client's, and whatever a client wrote into
// the header itself (further left) is ignored. (Fiber's c.IP() returns the leftmost value, which
// a client can choose.)
func (p *Proxies) ClientIP(c *fiber.Ctx) string {
	remote := c.Context().RemoteIP()
	if p.header == "" || !p.isTrusted(remote) {
		return remote.String()
	}
	hops := strings.Split(c.Get(p.header), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		ip := net.ParseIP(strings.TrimSpace(hops[i]))
		if ip == nil {
			break
		}
		remote = ip
		if !p.isTrusted(ip) {
			break
		}
	}
	return remote.String()
}
