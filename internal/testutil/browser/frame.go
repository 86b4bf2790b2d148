package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Frame attaches to the cross-site iframe of tab whose URL starts with prefix (Chrome runs it in
// its own process, out of reach of the page's DOM) and returns a context for actions inside it.
//
// Attaching to an out-of-process iframe now and then yields a session that never answers, so
// the attachment is proven with ready, an action on the framed page, and made again when that
// does not answer within a few seconds.
func Frame(t testing.TB, tab context.Context, prefix string, ready chromedp.Action[chromedp.Void]) context.Context {
	t.Helper()
	for attempt := 1; attempt <= 4; attempt++ {
		id := frameTargetID(t, tab, prefix)
		frame, cancel := chromedp.NewContext(tab, chromedp.WithTargetID(id))
		// The first Do attaches with frame itself: a session attached under a shorter-lived
		// context would end with it.
		err := chromedp.Do(frame)
		if err == nil {
			try, stop := context.WithTimeout(frame, 10*time.Second)
			err = chromedp.Do(try, ready)
			stop()
		}
		if err == nil {
			t.Cleanup(cancel)
			return frame
		}
		t.Logf("browser: attaching to the iframe at %s, try %d: %v", prefix, attempt, err)
		cancel()
	}
	t.Fatalf("browser: the iframe at %s never answered", prefix)
	return nil
}

// frameTargetID waits for the iframe target whose URL starts with prefix.
func frameTargetID(t testing.TB, tab context.Context, prefix string) target.ID {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		infos, err := chromedp.Targets(tab)
		if err != nil {
			t.Fatalf("browser: targets: %v", err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, prefix) {
				return info.TargetID
			}
		}
	}
	t.Fatalf("browser: no iframe at %s", prefix)
	return ""
}
