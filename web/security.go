package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"disburse/static"
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

// serveStatic answers /static/* from the embedded assets. Asset URLs carry a hash of their
// content (?v=...), so a matching URL may be cached for good and a new build is fetched at once.
func (s *Server) serveStatic() error {
	s.assets = map[string]string{}
	files := map[string][]byte{}
	err := fs.WalkDir(static.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(static.FS, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		files[p] = b
		s.assets[p] = "/static/" + p + "?v=" + hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		return err
	}
	return s.Register([]Route{{Method: fiber.MethodGet, Path: "/static/*", Perm: PermPublic, Handler: func(c *fiber.Ctx) error {
		name := c.Params("*")
		b, ok := files[name]
		if !ok {
			return fiber.ErrNotFound
		}
		if v := c.Query("v"); v != "" && "/static/"+name+"?v="+v == s.assets[name] {
			c.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			c.Set("Cache-Control", "no-cache")
		}
		c.Set(fiber.HeaderContentType, mime.TypeByExtension(path.Ext(name)))
		return c.Send(b)
	}}})
}

// Asset returns the versioned URL of an embedded asset, such as "css/app.css".
func (s *Server) Asset(name string) string { return s.assets[name] }
