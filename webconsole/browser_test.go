package webconsole_test

// The console in a real headless Chromium (Debian's chromium), driven
// over the DevTools protocol: what a person sees and clicks. With
// PARLEY_CONSOLE_SCREENSHOTS=<dir> the pages are also saved there as
// PNGs (docs/console/ holds the committed ones).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/parleybot/parley/webconsole"
)

// chromium is a browser tab; the test is skipped without Chromium, except
// in CI (CI set), where it fails.
func chromium(t *testing.T) context.Context {
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
		chromedp.WindowSize(1100, 800), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	// A hang, not a timing assertion.
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// shoot saves the page as name.png when screenshots are asked for.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PARLEY_CONSOLE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// text is the visible text of the element sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// clickTo clicks sel and waits for the page titled title to load.
func clickTo(t *testing.T, ctx context.Context, sel, wantTitle string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
	// The page navigates away from under a script that waits in it, so
	// each look is a fresh evaluation in whatever page is there.
	now := ""
	for ctx.Err() == nil {
		title, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState == 'complete' ? document.title : ''`))
		if err == nil && strings.HasPrefix(title, wantTitle) {
			return
		}
		now = title
		time.Sleep(20 * time.Millisecond) // the browser's pace, not a timing assertion
	}
	t.Fatalf("after clicking %s: no page %q (at %q)", sel, wantTitle, now)
}

func TestBrowser(t *testing.T) {
	c := newConsole(t)
	ctx := chromium(t)
	mine := c.conversation(t, "slack:UANA", "what is in /tmp?")
	theirs := c.conversation(t, "slack:UBO", "bo's secret plan")

	// The operator signs in with a one-time link.
	link := c.http.URL + c.link(t, webconsole.Operator)
	err := chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`button[type=submit]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	shoot(t, ctx, "sign-in")
	clickTo(t, ctx, `button[type=submit]`, "Overview")
	if h := text(t, ctx, "main h1"); h != "Overview" {
		t.Fatalf("after signing in: %q", h)
	}
	shoot(t, ctx, "overview")

	// A conversation with its tool call, arguments and result.
	if err := chromedp.Do(ctx, chromedp.Navigate(c.http.URL+"/conversations"), chromedp.WaitVisible(chromedp.CSS(`table`))); err != nil {
		t.Fatal(err)
	}
	shoot(t, ctx, "conversations")
	clickTo(t, ctx, `a[href="/conversations/`+mine+`"]`, "Conversation")
	body := text(t, ctx, ".transcript")
	for _, want := range []string{"what is in /tmp?", "shell", `"command": "ls /tmp"`, "a.txt", "There is a.txt."} {
		if !strings.Contains(body, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, body)
		}
	}
	shoot(t, ctx, "conversation")
	for _, page := range []string{"audit", "sessions"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(c.http.URL+"/"+page), chromedp.WaitVisible(chromedp.CSS(`main h1`))); err != nil {
			t.Fatal(err)
		}
		shoot(t, ctx, page)
	}

	// A form whose CSRF token is gone is refused, and changes nothing.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('input[name=csrf]').forEach(e => e.remove()); 0`)); err != nil {
		t.Fatal(err)
	}
	clickTo(t, ctx, `button.danger`, "Forbidden")
	out := text(t, ctx, "main")
	if !strings.Contains(out, "did not come from this console") {
		t.Fatalf("a form without its token: %q", out)
	}
	if n, _ := c.db.Sessions(t.Context(), c.clock.now()); len(n) != 1 {
		t.Fatalf("sessions after the refused form: %d, want 1", len(n))
	}

	// A person sees what Parley keeps about them, and nothing of anyone
	// else's, whatever URL they type.
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := c.db.EditMemory(t.Context(), "slack:UANA", "facts", func([]string) ([]string, error) { return []string{"Ana deploys on Tuesdays."}, nil }); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(c.http.URL+c.link(t, "slack:UANA"))); err != nil {
		t.Fatal(err)
	}
	clickTo(t, ctx, `button[type=submit]`, "What Parley keeps about you")
	if got := text(t, ctx, "main"); !strings.Contains(got, "What Parley keeps about you") || !strings.Contains(got, "Ana deploys on Tuesdays.") {
		t.Fatalf("ana's page: %q", got)
	}
	shoot(t, ctx, "person")
	for path, want := range map[string]string{
		"/audit": "This page is for admins.", "/sessions": "This page is for admins.",
		"/conversations/" + theirs: "There is no conversation of yours with that id.",
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(c.http.URL+path), chromedp.WaitVisible(chromedp.CSS(`main h1`))); err != nil {
			t.Fatal(err)
		}
		if got := text(t, ctx, "main"); !strings.Contains(got, want) || strings.Contains(got, "secret plan") {
			t.Errorf("ana at %s: %q", path, got)
		}
	}
	// Her link again: used.
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	clickTo(t, ctx, `button[type=submit]`, "Forbidden")
	if got := text(t, ctx, "main"); !strings.Contains(got, "used already") {
		t.Errorf("a used link: %q", got)
	}
}
