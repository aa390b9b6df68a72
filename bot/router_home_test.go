package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// homeFake is a platform with a Home page per person: what is published
// there, and what its next calls answer.
type homeFake struct {
	chatFake
	mu        sync.Mutex
	published map[string][]chat.Home // by user id
	calls     int
	fail      []error // the next calls' answers, in order
}

func (f *homeFake) PublishHome(_ context.Context, u chat.User, home chat.Home) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(f.fail) > 0 {
		err := f.fail[0]
		f.fail = f.fail[1:]
		if err != nil {
			return err
		}
	}
	f.published[u.ID] = append(f.published[u.ID], home)
	return nil
}

func (f *homeFake) homes(user string) []chat.Home {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chat.Home(nil), f.published[user]...)
}

type homeWorld struct {
	db    *store.DB
	fake  *homeFake
	route *bot.Router
}

// newHomeWorld is a router over a SQLite file and a Slack with Home
// pages; cfg adds the console and the conversation count.
func newHomeWorld(t *testing.T, cfg bot.RouterConfig) *homeWorld {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fake := &homeFake{chatFake: chatFake{platform: "slack"}, published: map[string][]chat.Home{}}
	cfg.Sessions, cfg.Inbox, cfg.KV = db, db, db
	cfg.Runner = &agent.Runner{RunnerConfig: agent.RunnerConfig{Sessions: db, Memory: db, Logger: slog.New(slog.DiscardHandler)}}
	cfg.Commands = bot.NewSharedCommands(db, db, agent.MemoryLimits{})
	cfg.Reminders = &bot.RemindersConfig{Items: db, Outbox: db}
	cfg.Logger = slog.New(slog.DiscardHandler)
	return &homeWorld{db: db, fake: fake, route: newRouter(t, cfg, fake)}
}

// open has user open their Home page in workspace T1 and waits until
// the router is done with it.
func (w *homeWorld) open(t *testing.T, user chat.User) {
	t.Helper()
	if err := w.route.HandleHome(t.Context(), chat.HomeOpened{User: user, Space: "T1"}); err != nil {
		t.Fatal(err)
	}
	w.route.Wait()
}

// openOnce has Slack's user open their first page and returns it, and
// its lines as one text.
func (w *homeWorld) openOnce(t *testing.T, user string) (chat.Home, string) {
	t.Helper()
	w.open(t, chat.User{Platform: "slack", ID: user})
	homes := w.fake.homes(user)
	if len(homes) != 1 {
		t.Fatalf("published %d pages, want 1", len(homes))
	}
	return homes[0], strings.Join(homes[0].Lines, "\n")
}

func addItem(t *testing.T, db *store.DB, kind remind.Kind, scope, owner string, status remind.Status) {
	t.Helper()
	it := remind.Item{Kind: kind, Scope: scope, Owner: owner, Text: "x", Zone: "UTC", Next: time.Now().Add(time.Hour),
		Place: remind.Place{Platform: "slack", Space: "T1", Chat: "C1"}}
	if kind == remind.KindSchedule {
		it.Spec = "0 9 * * *"
	}
	id, err := db.AddItem(t.Context(), it, 0)
	if err != nil {
		t.Fatal(err)
	}
	if status == remind.StatusPaused {
		if _, err := db.PauseItem(t.Context(), id, true, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHomePage: a person's page counts their memory entries, their own
// active reminders and schedules where the page looks (their private
// chats, this workspace) and their conversations, and carries a sign-in
// link made for them alone.
func TestHomePage(t *testing.T) {
	var linked []string
	w := newHomeWorld(t, bot.RouterConfig{
		ConsoleLink: func(_ context.Context, user string) (string, error) {
			linked = append(linked, user)
			return "http://console.test/login/secret-" + user, nil
		},
		Conversations: func(_ context.Context, user string) (int, error) {
			if user != "slack:UA" {
				return 0, errors.New("wrong person " + user)
			}
			return 1234, nil
		},
	})
	ctx := t.Context()
	for _, e := range []struct {
		target agent.MemoryTarget
		list   []string
	}{{agent.Profile, []string{"likes tea"}}, {agent.Facts, []string{"works on billing", "ships on Fridays"}}} {
		if err := w.db.EditMemory(ctx, "slack:UA", e.target, func([]string) ([]string, error) { return e.list, nil }); err != nil {
			t.Fatal(err)
		}
	}
	addItem(t, w.db, remind.KindReminder, "person:slack:UA", "slack:UA", remind.StatusActive)
	addItem(t, w.db, remind.KindReminder, "space:slack:T1", "slack:UA", remind.StatusActive)
	addItem(t, w.db, remind.KindSchedule, "space:slack:T1", "slack:UA", remind.StatusActive)
	addItem(t, w.db, remind.KindSchedule, "space:slack:T1", "slack:UA", remind.StatusPaused) // not active
	addItem(t, w.db, remind.KindReminder, "space:slack:T1", "slack:UB", remind.StatusActive) // someone else's
	addItem(t, w.db, remind.KindReminder, "space:slack:T2", "slack:UA", remind.StatusActive) // another workspace

	h, text := w.openOnce(t, "UA")
	for _, want := range []string{"**Memory:** 3 entries", "**Reminders:** 2 active · **Schedules:** 1 active", "**Conversations:** 1,234.", "10 minutes", "once"} {
		if !strings.Contains(text, want) {
			t.Errorf("page lacks %q:\n%s", want, text)
		}
	}
	if h.Title == "" || h.Link == nil || h.Link.Label != "Open the console" || h.Link.URL != "http://console.test/login/secret-slack:UA" {
		t.Errorf("page %+v", h)
	}
	if len(linked) != 1 || linked[0] != "slack:UA" {
		t.Errorf("links made for %v, want slack:UA once", linked)
	}
	if others := w.fake.homes("UB"); len(others) != 0 {
		t.Errorf("someone else's page published: %+v", others)
	}

	// Every opening is a fresh link.
	w.open(t, chat.User{Platform: "slack", ID: "UA"})
	if n := len(w.fake.homes("UA")); n != 2 || len(linked) != 2 {
		t.Errorf("second opening: %d pages, %d links", n, len(linked))
	}
}

// TestHomePageWithoutConsole: with the console off there is no button,
// only how to get a link; the counts stand without the conversations.
func TestHomePageWithoutConsole(t *testing.T) {
	w := newHomeWorld(t, bot.RouterConfig{})
	h, text := w.openOnce(t, "UA")
	if h.Link != nil || !strings.Contains(text, "/console") || !strings.Contains(text, "**Memory:** 0 entries") || strings.Contains(text, "Conversations") {
		t.Errorf("page %+v", h)
	}
}

// TestHomePageRefusals: a person who may not use Parley gets no page, and
// no link is made; a failing link still shows the summary.
func TestHomePageRefusals(t *testing.T) {
	made := 0
	w := newHomeWorld(t, bot.RouterConfig{
		Access: bot.Access{Platforms: map[string]bot.AccessList{"slack": {AllowUsers: []string{"UA"}}}},
		ConsoleLink: func(context.Context, string) (string, error) {
			made++
			return "", errors.New("store down")
		},
	})
	w.open(t, chat.User{Platform: "slack", ID: "UZ"})
	if n := len(w.fake.homes("UZ")); n != 0 || made != 0 {
		t.Errorf("a stranger got %d pages, %d links", n, made)
	}
	w.open(t, chat.User{Platform: "slack", ID: "UA"})
	homes := w.fake.homes("UA")
	if len(homes) != 1 || homes[0].Link != nil || !strings.Contains(strings.Join(homes[0].Lines, "\n"), "send /console") {
		t.Errorf("with the link failing: %+v", homes)
	}
}

// TestHomePagePublishFailures: a rate limit is waited out and the page
// published once; any other failure is logged, nothing is retried and
// nothing breaks.
func TestHomePagePublishFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newHomeWorld(t, bot.RouterConfig{})
		w.fake.fail = []error{&chat.RateLimitError{RetryAfter: 3 * time.Second, Err: errors.New("429")}}
		start := time.Now()
		w.open(t, chat.User{Platform: "slack", ID: "UA"})
		if n := len(w.fake.homes("UA")); n != 1 || w.fake.calls != 2 || time.Since(start) < 3*time.Second {
			t.Errorf("after a 429: %d pages in %d calls after %v", n, w.fake.calls, time.Since(start))
		}
		w.fake.fail = []error{errors.New("slack views.publish: invalid_arguments")}
		w.open(t, chat.User{Platform: "slack", ID: "UA"})
		if n := len(w.fake.homes("UA")); n != 1 || w.fake.calls != 3 {
			t.Errorf("after a refusal: %d pages in %d calls", n, w.fake.calls)
		}
	})
}
