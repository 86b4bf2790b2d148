package hosted

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"path"

	"github.com/gofiber/fiber/v2"
)

// assets are the files of Config.Assets (package static's embedded build), served under /static/ with URLs that carry a
// hash of their content: such a URL may be cached for good, and a new build is fetched at once.
type assets struct {
	files map[string][]byte
	urls  map[string]string
}

func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{files: map[string][]byte{}, urls: map[string]string{}}
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
	if err == nil && a.urls["css/app.css"] == "" {
		err = errors.New("hosted: the assets have no css/app.css")
	}
	return a, err
}

// url is the versioned URL of an asset, such as "css/app.css".
func (a *assets) url(name string) string { return a.urls[name] }

// serveStatic answers /static/* from the embedded files.
func (h *Handler) serveStatic(c *fiber.Ctx) error {
	name := c.Params("*")
	b, ok := h.assets.files[name]
	if !ok {
		return fiber.ErrNotFound
	}
	if v := c.Query("v"); v != "" && "/static/"+name+"?v="+v == h.assets.urls[name] {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentType, mime.TypeByExtension(path.Ext(name)))
	return c.Send(b)
}
