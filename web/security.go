package web

import (
	"crypto/rand"
	"encoding/base64"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/static"
)

const localsNonce = "web.nonce"

// securityHeaders sets, on every answer: a CSP whose scripts must come from our origin or carry
// this response's nonce (htmx is served from our origin, and no inline script or style is
// allowed), no framing of the dashboard, nosniff, a referrer policy that keeps object ids in
// URLs on this site, and no caching (assets override that).
func (s *Server) securityHeaders(c *fiber.Ctx) error {
	nonceBytes := make([]byte, 16)
	rand.Read(nonceBytes)
	nonce := base64.StdEncoding.EncodeToString(nonceBytes)
	c.Locals(localsNonce, nonce)

	frameSrc := "'self'"
	if len(s.cfg.FrameSources) > 0 {
		frameSrc += " " + strings.Join(s.cfg.FrameSources, " ")
	}
	c.Set("Content-Security-Policy", "default-src 'self'; script-src 'nonce-"+nonce+"' 'self'; "+
		"style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-src "+frameSrc+"; "+
		"frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
	c.Set("Cache-Control", "no-store")
	if s.cfg.Secure {
		c.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
	}
	return c.Next()
}

// Nonce returns the response's CSP nonce.
func Nonce(c *fiber.Ctx) string {
	n, _ := c.Locals(localsNonce).(string)
	return n
}

// serveStatic answers /static/* from the embedded assets.
func (s *Server) serveStatic() error {
	assets, err := static.Load(static.FS)
	if err != nil {
		return err
	}
	s.assets = assets
	return s.Register([]Route{{Method: fiber.MethodGet, Path: "/static/*", Perm: PermPublic, Handler: assets.Serve}})
}

// Asset returns the versioned URL of an embedded asset, such as "css/app.css".
func (s *Server) Asset(name string) string { return s.assets.URL(name) }
