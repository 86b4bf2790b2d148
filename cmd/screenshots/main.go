// Command screenshots regenerates docs/screenshots: it starts the service and the dashboard
// in-process on a temporary SQLite with the demo data set (internal/testutil/demo), signs in,
// and saves a full-page PNG of every page type at 1440x900 and 390x844 as NAME-WIDTH.png. A
// screenshot that looks the same as the one on disk (ids and relative times aside) is left as it
// is, so regenerating does not churn the repository. It is a developer's tool, not a product
// command:
//
//	go run ./cmd/screenshots
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/cmd/screenshots/demo"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// sameEnough is the share of pixels that may differ from the file on disk for a screenshot to
// count as unchanged: the demo's ids and times differ on every run.
const sameEnough = 0.01

func main() {
	out := flag.String("out", filepath.Join("docs", "screenshots"), "the folder to write the PNGs to")
	scheme := flag.String("scheme", "light", "the system theme to show the pages in: light or dark")
	flag.Parse()
	if err := run(context.Background(), *out, *scheme); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, scheme string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "disburse-screenshots")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	d, err := demo.Start(ctx, dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer d.Close()
	chromium, err := browser.FindChromium()
	if err != nil {
		return err
	}
	tab, closeBrowser, err := browser.Launch(chromium, func(string, ...any) {})
	if err != nil {
		return err
	}
	defer closeBrowser()

	tour := d.Tour(tab)
	var written, kept int
	for _, p := range d.Pages() {
		for _, v := range demo.Viewports {
			name := filepath.Join(out, p.Name+"-"+strconv.FormatInt(v.Width, 10)+".png")
			if err := tour.Visit(p, v, scheme); err != nil {
				return fmt.Errorf("%s: %w", p.Name, err)
			}
			// Lets htmx-loaded parts and the flow's iframe settle; a dev tool may wait.
			if err := chromedp.Do(tab, chromedp.Sleep(300*time.Millisecond)); err != nil {
				return err
			}
			shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			changed, err := differs(name, shot)
			if err != nil {
				return err
			}
			if !changed {
				kept++
				continue
			}
			if err := os.WriteFile(name, shot, 0o644); err != nil {
				return err
			}
			written++
			fmt.Printf("wrote %s (%d KB)\n", name, len(shot)>>10)
		}
	}
	fmt.Printf("%d screenshots written, %d unchanged\n", written, kept)
	return checkREADME(d.Pages())
}

// checkREADME names the pages README.md's Screenshots section does not link yet.
func checkREADME(pages []demo.Page) error {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	for _, p := range pages {
		if !bytes.Contains(readme, []byte("docs/screenshots/"+p.Name+"-")) {
			fmt.Printf("README.md's Screenshots section does not link %s yet\n", p.Name)
		}
	}
	return nil
}

// differs reports whether shot looks different from the PNG at name: a missing file, another
// size, or more than sameEnough of the pixels changed.
func differs(name string, shot []byte) (bool, error) {
	old, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return true, nil
	}
	if err != nil || bytes.Equal(old, shot) {
		return false, err
	}
	a, errA := png.Decode(bytes.NewReader(old))
	b, errB := png.Decode(bytes.NewReader(shot))
	if errA != nil || errB != nil || a.Bounds() != b.Bounds() {
		return true, nil
	}
	return changedShare(a, b) > sameEnough, nil
}

// changedShare is the share of the pixels of a and b (of one size) that differ.
func changedShare(a, b image.Image) float64 {
	r := a.Bounds()
	changed := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				changed++
			}
		}
	}
	return float64(changed) / float64(r.Dx()*r.Dy())
}
