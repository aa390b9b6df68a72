// Package browsertest drives a real headless Chromium (Debian's chromium)
// for the web console's tests, over the DevTools protocol (chromedp):
// open a tab, click and wait for the next page, read text, save
// screenshots for docs/console.md.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The window a tab opens in.
const deskWidth, deskHeight = 1100, 800

// Tab is a browser tab; the test is skipped without Chromium, except in
// CI (CI set), where it fails. The browser ends with the test.
func Tab(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium to run the console's browser tests (apt-get install chromium)")
		}
		t.Skip("no Chromium here (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(deskWidth, deskHeight), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.WithoutCancel(t.Context()), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	// A hang, not a timing assertion.
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// Go opens url and waits for it to load.
func Go(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// ClickTo clicks the element sel and waits for a page whose title starts
// with title to have loaded.
func ClickTo(t *testing.T, ctx context.Context, sel, title string) {
	t.Helper()
	// The page before the click is marked, so that a next page with the
	// same title is told from it.
	Eval(t, ctx, `window.parleyBefore = true`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
	// The page navigates away from under a script that waits in it, so
	// each look is a fresh evaluation in whatever page is there.
	now := ""
	deadline := time.Now().Add(30 * time.Second) // a hang, not a timing assertion
	for ctx.Err() == nil && time.Now().Before(deadline) {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`window.parleyBefore || document.readyState != 'complete' ? [] : [document.title, document.body.innerText]`))
		if err == nil && len(got) == 2 {
			if strings.HasPrefix(got[0], title) {
				return
			}
			t.Fatalf("after clicking %s: page %q, not %q:\n%s", sel, got[0], title, got[1])
		}
		time.Sleep(20 * time.Millisecond) // the browser's pace, not a timing assertion
	}
	t.Fatalf("after clicking %s: no page %q (at %q)", sel, title, now)
}

// Text is the visible text of the element sel.
func Text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// Eval runs script in the page.
func Eval(t *testing.T, ctx context.Context, script string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](script+"; null")); err != nil && !strings.Contains(err.Error(), "null") {
		t.Fatalf("eval: %v", err)
	}
}

// Value is what script evaluates to in the page.
func Value[T any](t *testing.T, ctx context.Context, script string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script))
	if err != nil {
		t.Fatalf("evaluate %s: %v", script, err)
	}
	return v
}

// ForgetCookies signs the browser out of everything.
func ForgetCookies(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// Shoot saves the page as name.png in $PARLEY_TEST_SCREENSHOTS, when
// that is set (go test ... with it pointing at docs/console).
func Shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PARLEY_TEST_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Phone makes the tab a phone's screen (390 × 844, touch) until Desk.
func Phone(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatal(err)
	}
}

// Desk undoes Phone: the tab is the window's size again (Tab's 1100 ×
// 800; clearing the emulation alone leaves the phone's width in place).
func Desk(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(deskWidth, deskHeight)); err != nil {
		t.Fatal(err)
	}
}

// Wider reports whether the page is wider than the screen: content that
// makes people scroll sideways.
func Wider(t *testing.T, ctx context.Context) bool {
	t.Helper()
	return Value[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth + 1`)
}

// WaitText waits until the element sel's text is want, as the page
// changes it by itself (server-sent events).
func WaitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	got := ""
	deadline := time.Now().Add(30 * time.Second) // a hang, not a timing assertion
	for ctx.Err() == nil && time.Now().Before(deadline) {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+strconv.Quote(sel)+`) || {}).textContent || ""`))
		if err == nil && strings.TrimSpace(s) == want {
			return
		}
		got = s
		time.Sleep(20 * time.Millisecond) // the browser's pace, not a timing assertion
	}
	t.Fatalf("%s reads %q, never %q", sel, got, want)
}
