package main

// Slack's App Home end to end (docs/slack.md#the-home-tab): the real
// binary on the Slack fake with the console on; a person opens the Home
// tab and the published view's button signs them, and only them, in once.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

// homeButtonURL is the URL of the link button in a published Home view;
// "" when it has none.
func homeButtonURL(t *testing.T, view json.RawMessage) string {
	t.Helper()
	var v struct {
		Type   string `json:"type"`
		Blocks []struct {
			Type     string `json:"type"`
			Elements []struct {
				Type string `json:"type"`
				URL  string `json:"url"`
			} `json:"elements"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(view, &v); err != nil || v.Type != "home" {
		t.Fatalf("view %s: %v", view, err)
	}
	for _, b := range v.Blocks {
		for _, e := range b.Elements {
			if b.Type == "actions" && e.Type == "button" && e.URL != "" {
				return e.URL
			}
		}
	}
	return ""
}

// signIn POSTs to a sign-in link without following the redirect.
func signIn(t *testing.T, link string) (int, []*http.Cookie, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Post(link, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Cookies(), string(body)
}

// signedInAs is who the console says the session of cookies is.
func signedInAs(t *testing.T, base string, cookies []*http.Cookie) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	_, who, ok := strings.Cut(string(body), `<span class="who">`)
	if !ok {
		return ""
	}
	who, _, _ = strings.Cut(who, "<")
	return who
}

func TestSlackHomeTabSignsIn(t *testing.T) {
	addr := freeAddr(t)
	slk, _ := startSlack(t, map[string]string{"PARLEY_CONSOLE_LISTEN": addr})
	ctx := waitCtx(t)
	base := "http://" + addr

	// The Messages tab and the bot itself open nothing; they come first,
	// so by the time ana's page is out they were handled.
	ignored := []string{slk.OpenHome("U1", "messages"), slk.OpenHome(slk.BotUserID(), "home")}
	ana := slk.OpenHome("U1", "home")
	if err := slk.WaitFor(ctx, func() bool { return slk.HomeView("U1") != nil }); err != nil {
		t.Fatalf("ana's Home tab never published: %v", err)
	}
	// Acks travel the socket while views.publish travels HTTP, so the
	// view can arrive first; the acks come in order, so once ana's is in,
	// the earlier ones are too (or were never sent).
	acks := map[string]bool{}
	if err := slk.WaitFor(ctx, func() bool {
		for _, a := range slk.Acks() {
			acks[a.EnvelopeID] = true
		}
		return acks[ana]
	}); err != nil {
		t.Fatalf("ana's envelope %s never acknowledged: %v", ana, err)
	}
	for _, env := range ignored {
		if !acks[env] {
			t.Errorf("envelope %s not acknowledged", env)
		}
	}
	if n := len(slk.CallsTo("views.publish")); n != 1 {
		t.Errorf("views.publish called %d times, want once (ana's)", n)
	}
	if v := slk.HomeView(slk.BotUserID()); v != nil {
		t.Errorf("the bot got a Home view: %s", v)
	}
	view := slk.HomeView("U1")
	link := homeButtonURL(t, view)
	if !strings.HasPrefix(link, base+"/login/") {
		t.Fatalf("ana's view has the button %q, want a sign-in link on %s; view %s", link, base, view)
	}
	for _, want := range []string{"What Parley keeps about you", "Memory:", "10 minutes"} {
		if !strings.Contains(string(view), want) {
			t.Errorf("the view lacks %q: %s", want, view)
		}
	}
	if v := slk.HomeView("U2"); v != nil {
		t.Errorf("bo, who opened nothing, has a view: %s", v)
	}

	// The link signs ana in once, as ana.
	status, cookies, _ := signIn(t, link)
	if status != http.StatusSeeOther || len(cookies) == 0 {
		t.Fatalf("first use: %d, cookies %v; want 303 with a session", status, cookies)
	}
	if who := signedInAs(t, base, cookies); who != "slack:U1" {
		t.Errorf("ana's link signed in %q", who)
	}
	if status, _, _ := signIn(t, link); status != http.StatusForbidden {
		t.Errorf("second use: %d, want 403", status)
	}

	// Bo's page, through a views.publish failing once with a 500, has a
	// link of his own.
	slk.FailNext("views.publish", 1, slacktest.FaultServerError)
	slk.OpenHome("U2", "home")
	if err := slk.WaitFor(ctx, func() bool { return slk.HomeView("U2") != nil }); err != nil {
		t.Fatalf("bo's Home tab never published after a 500: %v", err)
	}
	boLink := homeButtonURL(t, slk.HomeView("U2"))
	if boLink == "" || boLink == link || homeButtonURL(t, slk.HomeView("U1")) != link {
		t.Errorf("bo's link %q, ana's %q: want one each", boLink, link)
	}
	status, cookies, _ = signIn(t, boLink)
	if status != http.StatusSeeOther {
		t.Fatalf("bo's link: %d, want 303", status)
	}
	if who := signedInAs(t, base, cookies); who != "slack:U2" {
		t.Errorf("bo's link signed in %q", who)
	}
}
