package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"path"

	"github.com/gofiber/fiber/v2"
)

// Assets serves the files of an FS under /static/ with URLs that carry a hash of their content
// (?v=...): such a URL may be cached for good, and a new build is fetched at once. The dashboard
// and the service's hosted pages both serve FS through it.
type Assets struct {
	files map[string][]byte
	urls  map[string]string
}

// Load reads every file of fsys.
func Load(fsys fs.FS) (*Assets, error) {
	a := &Assets{files: map[string][]byte{}, urls: map[string]string{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a.files[p] = b
		a.urls[p] = "/static/" + p + "?v=" + hex.EncodeToString(sum[:6])
		return nil
	})
	return a, err
}

// URL is the versioned URL of an asset, such as "css/app.css", or "" when there is none.
func (a *Assets) URL(name string) string { return a.urls[name] }

// Serve answers GET /static/* (the wildcard is the asset's name).
func (a *Assets) Serve(c *fiber.Ctx) error {
	name := c.Params("*")
	b, ok := a.files[name]
	if !ok {
		return fiber.ErrNotFound
	}
	if v := c.Query("v"); v != "" && "/static/"+name+"?v="+v == a.urls[name] {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentType, mime.TypeByExtension(path.Ext(name)))
	return c.Send(b)
}
