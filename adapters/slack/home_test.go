package slack

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"
)

func TestNormalizeHome(t *testing.T) {
	me := self{UserID: "UBOT", BotID: "BBOT"}
	tests := []struct {
		name string
		ev   *slackevents.AppHomeOpenedEvent
		ok   bool
	}{
		{"the home tab", &slackevents.AppHomeOpenedEvent{User: "UALICE", Channel: "DALICE", Tab: "home"}, true},
		{"the messages tab", &slackevents.AppHomeOpenedEvent{User: "UALICE", Channel: "DALICE", Tab: "messages"}, false},
		{"the about tab", &slackevents.AppHomeOpenedEvent{User: "UALICE", Tab: "about"}, false},
		{"no user", &slackevents.AppHomeOpenedEvent{Tab: "home"}, false},
		{"the bot itself", &slackevents.AppHomeOpenedEvent{User: "UBOT", Tab: "home"}, false},
		{"another bot", &slackevents.AppHomeOpenedEvent{User: "B0OTHER", Tab: "home"}, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := normalizeHome("T1", tt.ev, me)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, got)
			}
			if ok && (got.User != chat.User{Platform: "slack", ID: "UALICE"} || got.Space != "T1") {
				t.Errorf("got %+v", got)
			}
		})
	}
}

// homeHandler records the Home tabs opened, and nothing else.
type homeHandler struct {
	recordingHandler
	mu     sync.Mutex
	opened []chat.HomeOpened
}

func (h *homeHandler) HandleHome(_ context.Context, o chat.HomeOpened) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opened = append(h.opened, o)
	return nil
}

func (h *homeHandler) homes() []chat.HomeOpened {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]chat.HomeOpened(nil), h.opened...)
}

// runHome runs the real adapter in Socket Mode against a fake with its
// rate limits, handing events to h, until the test ends.
func runHome(t *testing.T, h chat.Handler) (*Adapter, *slacktest.Server, context.Context) {
	t.Helper()
	srv := slacktest.NewServer()
	t.Cleanup(srv.Close)
	logs := &syncbuf.Buffer{}
	ad, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/",
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddUser("UALICE", "alice")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ad.Run(runCtx, h) }()
	t.Cleanup(func() {
		stop()
		<-done
		cancel()
		if t.Failed() {
			t.Logf("logs:\n%s", logs.String())
		}
	})
	return ad, srv, ctx
}

func acked(srv *slacktest.Server, id string) func() bool {
	return func() bool {
		for _, a := range srv.Acks() {
			if a.EnvelopeID == id {
				return true
			}
		}
		return false
	}
}

// TestHomeOpenedReachesTheHandler: opening the Home tab is a HomeOpened
// for that person in the workspace; the Messages tab and a bot are
// acknowledged and go no further, and so is everything for a handler
// that shows no pages.
func TestHomeOpenedReachesTheHandler(t *testing.T) {
	h := &homeHandler{}
	_, srv, ctx := runHome(t, h)
	for _, env := range []string{
		srv.OpenHome("UALICE", "messages"),
		srv.OpenHome(srv.BotUserID(), "home"),
		srv.OpenHome("UALICE", "home"),
	} {
		if err := srv.WaitFor(ctx, acked(srv, env)); err != nil {
			t.Fatalf("envelope %s not acked: %v", env, err)
		}
	}
	want := []chat.HomeOpened{{User: chat.User{Platform: "slack", ID: "UALICE"}, Space: srv.TeamID()}}
	if got := h.homes(); len(got) != 1 || got[0] != want[0] {
		t.Errorf("HandleHome got %+v, want %+v", got, want)
	}
	if n := len(h.messages()); n != 0 {
		t.Errorf("%d messages handed on", n)
	}

	plain := &recordingHandler{}
	_, srv2, ctx2 := runHome(t, plain)
	if err := srv2.WaitFor(ctx2, acked(srv2, srv2.OpenHome("UALICE", "home"))); err != nil {
		t.Fatalf("not acked for a handler without pages: %v", err)
	}
}

func homeBlocks(t *testing.T, view json.RawMessage) []blockJSON {
	t.Helper()
	var v struct {
		Type   string      `json:"type"`
		Blocks []blockJSON `json:"blocks"`
	}
	if err := json.Unmarshal(view, &v); err != nil || v.Type != "home" {
		t.Fatalf("view %s: type %q, %v", view, v.Type, err)
	}
	return v.Blocks
}

// TestPublishHome: a Home is a header, mrkdwn sections and a URL button,
// published for that person alone; Slack's refusals come back mapped.
func TestPublishHome(t *testing.T) {
	ad, srv, ctx := runHome(t, &homeHandler{})
	alice := chat.User{Platform: "slack", ID: "UALICE"}
	home := chat.Home{
		Title: "What Parley keeps about you",
		Lines: []string{"**Memory:** 2 entries.", "Send /console for a link."},
		Link:  &chat.HomeLink{Label: "Open the console", URL: "http://127.0.0.1:8090/login/abc"},
	}
	if err := ad.PublishHome(ctx, alice, home); err != nil {
		t.Fatal(err)
	}
	blocks := homeBlocks(t, srv.HomeView("UALICE"))
	if len(blocks) != 4 {
		t.Fatalf("blocks %+v, want header, two sections, actions", blocks)
	}
	if b := blocks[0]; b.Type != "header" || b.Text.Text != home.Title {
		t.Errorf("header %+v", b)
	}
	if b := blocks[1]; b.Type != "section" || b.Text.Type != "mrkdwn" || b.Text.Text != "*Memory:* 2 entries." {
		t.Errorf("first section %+v (Markdown bold is mrkdwn *bold*)", b.Text)
	}
	a := blocks[3]
	if a.Type != "actions" || len(a.Elements) != 1 || a.Elements[0].URL != home.Link.URL ||
		a.Elements[0].Text.Text != "Open the console" || a.Elements[0].Type != "button" {
		t.Errorf("actions %+v", a)
	}
	if v := srv.HomeView("UOTHER"); v != nil {
		t.Errorf("someone else's Home tab: %s", v)
	}

	// Without a link there is no button.
	if err := ad.PublishHome(ctx, alice, chat.Home{Title: "t", Lines: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	for _, b := range homeBlocks(t, srv.HomeView("UALICE")) {
		if b.Type == "actions" {
			t.Errorf("a button without a link: %+v", b)
		}
	}

	srv.FailNext("views.publish", 1, slacktest.FaultServerError)
	err := ad.PublishHome(ctx, alice, home)
	if _, limited := chat.RetryAfter(err); !limited {
		t.Errorf("a 500 is %v, want a rate limit the core waits out", err)
	}
	srv.FailNextRateLimited("views.publish", 1, 3*time.Second)
	if d, limited := chat.RetryAfter(ad.PublishHome(ctx, alice, home)); !limited || d != 3*time.Second {
		t.Errorf("a 429 is a wait of %v (%v), want 3s", d, limited)
	}
	srv.FailNextError("views.publish", 1, "invalid_arguments")
	if err := ad.PublishHome(ctx, alice, home); err == nil || !strings.Contains(err.Error(), "home_tab_enabled") {
		t.Errorf("invalid_arguments = %v, want the Home tab setting named", err)
	}
	err = ad.PublishHome(ctx, alice, chat.Home{Link: &chat.HomeLink{Label: "x", URL: "javascript:alert(1)"}})
	if err == nil || errors.Is(err, chat.ErrFormatRejected) {
		t.Errorf("a link that is no web address: %v", err)
	}
}
