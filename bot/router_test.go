package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/tools"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// chatFake is a minimal platform: it records what the bot sent.
type chatFake struct {
	platform   string
	ephemeral  bool
	buttons    bool
	exitAtOnce bool
	privateOut []chat.Out
	mu         sync.Mutex
	sent       []string // "thread|text"
	private    []string // "user|text"
	// posted, when set, gets the text of every message sent, as it is.
	posted chan string
}

func (f *chatFake) Platform() string { return f.platform }
func (f *chatFake) Capabilities() chat.Capabilities {
	return chat.Capabilities{MaxLen: 4000, SplitAt: 3900, Ephemeral: f.ephemeral, Buttons: f.buttons}
}
func (f *chatFake) Run(ctx context.Context, _ chat.Handler) error {
	if f.exitAtOnce {
		return nil // lets Router.Run return once resumed turns finish
	}
	<-ctx.Done()
	return nil
}
func (f *chatFake) Send(_ context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, t.Chat+"|"+out.Text)
	if f.posted != nil {
		f.posted <- out.Text
	}
	return chat.MessageRef{Thread: t, ID: fmt.Sprint(len(f.sent))}, nil
}
func (f *chatFake) Edit(context.Context, chat.MessageRef, chat.Out) error { return nil }
func (f *chatFake) SendPrivate(_ context.Context, _ chat.Thread, u chat.User, out chat.Out) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.private = append(f.private, u.ID+"|"+out.Text)
	f.privateOut = append(f.privateOut, out)
	return nil
}
func (f *chatFake) Typing(context.Context, chat.Thread) error { return nil }

func (f *chatFake) snapshot() (sent, private []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...), append([]string(nil), f.private...)
}

// replies records every reply's final text by inbox key, and checks that
// no two replies of one session are ever open at once.
type replies struct {
	streaming chan string // receives an inbox key when its reply gets text
	mu        sync.Mutex
	finals    map[string][]string
	open      map[string]int
	overlaps  int
}

type fakeReply struct {
	rs       *replies
	key, sid string
	text     strings.Builder
}

func (r *fakeReply) Delta(_ context.Context, s string) error {
	r.text.WriteString(s)
	select {
	case r.rs.streaming <- r.key:
	default:
	}
	return nil
}
func (r *fakeReply) Reset(context.Context) error            { r.text.Reset(); return nil }
func (r *fakeReply) Progress(context.Context, string) error { return nil }
func (r *fakeReply) Finish(_ context.Context, final string) error {
	r.rs.mu.Lock()
	defer r.rs.mu.Unlock()
	r.rs.finals[r.key] = append(r.rs.finals[r.key], final)
	r.rs.open[r.sid]--
	return nil
}

func (rs *replies) factory(_ context.Context, _ chat.Adapter, key, sid string, _ chat.Thread, _ chat.User, _ string) (outbound.Reply, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.open[sid]++
	if rs.open[sid] > 1 {
		rs.overlaps++
	}
	return &fakeReply{rs: rs, key: key, sid: sid}, nil
}

func (rs *replies) final(key string) []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.finals[key]...)
}

type world struct {
	srv     *llmtest.Server
	db      *store.DB
	path    string
	runner  *agent.Runner
	replies *replies
	fake    *chatFake
	router  *bot.Router
	access  bot.Access
	// approvals, when set before open, are what the router's turns ask
	// (over the world's database).
	approvals *approvals.Config
}

func newWorld(t *testing.T, platform string, access bot.Access) *world {
	t.Helper()
	w := &world{srv: llmtest.NewServer(), path: filepath.Join(t.TempDir(), "parley.db"), access: slackOpen(access)}
	t.Cleanup(w.srv.Close)
	w.open(t, platform)
	return w
}

// slackOpen is a with Slack open to everyone unless a says otherwise, as
// Slack's description has it (adapters/slack.Platform).
func slackOpen(a bot.Access) bot.Access {
	if _, ok := a.Platforms["slack"]; !ok {
		a.Platforms = maps.Clone(a.Platforms)
		if a.Platforms == nil {
			a.Platforms = map[string]bot.AccessList{}
		}
		a.Platforms["slack"] = bot.AccessList{Open: true}
	}
	return a
}

// open (re)starts Parley's pieces over the same database, as a process
// restart does.
func (w *world) open(t *testing.T, platform string) {
	t.Helper()
	db, err := store.Open(t.Context(), w.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.db = db
	mem, err := tools.Memory(db, agent.MemoryLimits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.runner = &agent.Runner{RunnerConfig: agent.RunnerConfig{
		Provider: openai.New(openai.Config{APIKey: "sk-test", BaseURL: w.srv.OpenAIBaseURL()}),
		Sessions: db, Memory: db, Tools: []agent.Tool{mem}, Logger: slog.New(slog.DiscardHandler),
	}}
	if w.approvals != nil {
		w.approvals.Store = db
	}
	w.replies = &replies{finals: map[string][]string{}, open: map[string]int{}, streaming: make(chan string, 1)}
	w.fake = &chatFake{platform: platform}
	w.router = newRouter(t, bot.RouterConfig{
		Sessions: db, Inbox: db, KV: db, Runner: w.runner,
		Commands: bot.NewSharedCommands(db, db, agent.MemoryLimits{}),
		Access:   w.access, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
		Runs: evolve.Recorder{Runs: db, Memos: db}, Approvals: w.approvals,
	}, w.fake)
}

// newRouter is a router over adapters, Slack open to everyone unless
// cfg.Access says otherwise, as in Parley.
func newRouter(t testing.TB, cfg bot.RouterConfig, adapters ...chat.Adapter) *bot.Router {
	t.Helper()
	cfg.Access = slackOpen(cfg.Access)
	r, err := bot.NewRouter(cfg, adapters...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func msg(platform, chatID, thread, user, key, text string) chat.Message {
	return chat.Message{
		Key: key, ID: key, Text: text,
		Thread: chat.Thread{Platform: platform, Space: "W", Chat: chatID, ID: thread},
		User:   chat.User{Platform: platform, ID: user, Name: user},
	}
}

func TestGatingAndAccess(t *testing.T) {
	allowTG := bot.Access{Platforms: map[string]bot.AccessList{"telegram": {AllowUsers: []string{"42"}}}, Admins: []string{"telegram:7"}}
	tests := []struct {
		name     string
		platform string
		access   bot.Access
		m        func(m chat.Message) chat.Message
		answered bool
		refused  bool
	}{
		{"slack mention, open by default", "slack", bot.Access{}, func(m chat.Message) chat.Message { m.Mentioned = true; return m }, true, false},
		{"slack channel chatter without mention", "slack", bot.Access{}, func(m chat.Message) chat.Message { return m }, false, false},
		{"slack DM", "slack", bot.Access{}, func(m chat.Message) chat.Message { m.Direct = true; return m }, true, false},
		{"a bot's message", "slack", bot.Access{}, func(m chat.Message) chat.Message { m.Mentioned, m.FromBot = true, true; return m }, false, false},
		{"telegram stranger, closed by default", "telegram", bot.Access{}, func(m chat.Message) chat.Message { m.Direct = true; return m }, false, true},
		{"telegram allowed user", "telegram", allowTG, func(m chat.Message) chat.Message { m.Direct, m.User.ID = true, "42"; return m }, true, false},
		{"telegram admin", "telegram", allowTG, func(m chat.Message) chat.Message { m.Direct, m.User.ID = true, "7"; return m }, true, false},
		{"telegram allowed id on another platform", "discord", bot.Access{Platforms: map[string]bot.AccessList{"telegram": {AllowUsers: []string{"42"}}}}, func(m chat.Message) chat.Message { m.Direct, m.User.ID = true, "42"; return m }, false, true},
		{"wildcard", "discord", bot.Access{Platforms: map[string]bot.AccessList{"discord": {AllowUsers: []string{"*"}}}}, func(m chat.Message) chat.Message { m.Mentioned = true; return m }, true, false},
		{"allowed chat", "discord", bot.Access{Platforms: map[string]bot.AccessList{"discord": {AllowChats: []string{"C1"}}}}, func(m chat.Message) chat.Message { m.Mentioned = true; return m }, true, false},
		{"allowed guild", "discord", bot.Access{Platforms: map[string]bot.AccessList{"discord": {AllowChats: []string{"W"}}}}, func(m chat.Message) chat.Message { m.Mentioned = true; return m }, true, false},
		{"another chat allowed", "discord", bot.Access{Platforms: map[string]bot.AccessList{"discord": {AllowChats: []string{"C2"}}}}, func(m chat.Message) chat.Message { m.Mentioned = true; return m }, false, true},
		{"free-response chat", "slack", bot.Access{Platforms: map[string]bot.AccessList{"slack": {Open: true, FreeChats: []string{"C1"}}}}, func(m chat.Message) chat.Message { return m }, true, false},
		{"stranger not mentioned is ignored silently", "telegram", bot.Access{}, func(m chat.Message) chat.Message { return m }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.platform, tt.access)
			w.srv.Enqueue(llmtest.Text("hi"))
			m := tt.m(msg(tt.platform, "C1", "", "U1", "k1", "hello"))
			if err := w.router.HandleMessage(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			w.router.Wait()
			if got := len(w.replies.final("k1")) == 1; got != tt.answered {
				t.Fatalf("answered = %v, want %v", got, tt.answered)
			}
			sent, _ := w.fake.snapshot()
			refused := len(sent) == 1 && strings.Contains(sent[0], "user id "+m.User.ID)
			if refused != tt.refused {
				t.Fatalf("refused = %v, want %v (sent %q)", refused, tt.refused, sent)
			}
			if !tt.answered && len(w.srv.Requests()) != 0 {
				t.Fatal("a message that must not be answered reached the model")
			}
		})
	}
}

func TestRefuseStrangerOnce(t *testing.T) {
	w := newWorld(t, "telegram", bot.Access{})
	for i := range 3 {
		m := msg("telegram", "C1", "", "99", fmt.Sprint("k", i), "hi")
		m.Direct = true
		if err := w.router.HandleMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	if sent, _ := w.fake.snapshot(); len(sent) != 1 {
		t.Fatalf("refusals: %q, want exactly one", sent)
	}
}

func TestThreadContinuesWithoutMention(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.srv.Enqueue(llmtest.Text("first"), llmtest.Text("second"))
	m := msg("slack", "C1", "100.1", "U1", "k1", "@parley start")
	m.Mentioned = true
	w.router.HandleMessage(t.Context(), m)
	w.router.Wait()
	follow := msg("slack", "C1", "100.1", "U1", "k2", "and continue") // no mention, same thread
	w.router.HandleMessage(t.Context(), follow)
	other := msg("slack", "C1", "200.1", "U1", "k3", "unrelated thread") // no mention, unknown thread
	w.router.HandleMessage(t.Context(), other)
	w.router.Wait()
	if got := w.replies.final("k2"); len(got) != 1 || got[0] != "second" {
		t.Fatalf("follow-up: %q", got)
	}
	if got := w.replies.final("k3"); len(got) != 0 {
		t.Fatalf("an unrelated thread was answered: %q", got)
	}
}

// TestDedupeAcrossRestart: Slack sends message and app_mention for one
// mention, and platforms redeliver; one key is answered once, ever.
func TestDedupeAcrossRestart(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.srv.Enqueue(llmtest.Text("once"))
	m := msg("slack", "C1", "1.1", "U1", "T:C1:1.1", "hi")
	m.Mentioned = true
	for range 2 {
		if err := w.router.HandleMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	w.router.Wait()
	w.db.Close()
	w.open(t, "slack") // restart
	if err := w.router.HandleMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	w.router.Wait()
	if n := len(w.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls for one message key", n)
	}
}

// TestManySessionsConcurrently: 100 sessions × 5 messages at once; every
// message reaches its session, no session ever runs two turns at once.
func TestManySessionsConcurrently(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.srv.Close()
	w.srv = llmtest.NewServer(llmtest.WithResponder(llmtest.Echo))
	t.Cleanup(w.srv.Close)
	w.runner.Provider = openai.New(openai.Config{APIKey: "sk-test", BaseURL: w.srv.OpenAIBaseURL()})
	var wg sync.WaitGroup
	for s := range 100 {
		for i := range 5 {
			wg.Go(func() {
				m := msg("slack", fmt.Sprint("C", s), "", "U1", fmt.Sprintf("s%d-m%d", s, i), fmt.Sprintf("message %d", i))
				m.Direct = true
				if err := w.router.HandleMessage(t.Context(), m); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	w.router.Wait()
	if w.replies.overlaps != 0 {
		t.Fatalf("%d times a session had two turns at once", w.replies.overlaps)
	}
	for s := range 100 {
		sid, ok, err := w.db.BoundSession(t.Context(), chat.Thread{Platform: "slack", Space: "W", Chat: fmt.Sprint("C", s)})
		if err != nil || !ok {
			t.Fatalf("session %d: %v %v", s, ok, err)
		}
		msgs, _ := w.db.Messages(t.Context(), sid)
		var all string
		for _, m := range msgs {
			all += m.Text + "\n"
		}
		for i := range 5 {
			if !strings.Contains(all, fmt.Sprintf("message %d", i)) {
				t.Fatalf("session %d lost message %d:\n%s", s, i, all)
			}
		}
	}
	left, err := w.db.Unfinished(t.Context())
	if err != nil || len(left) != 0 {
		t.Fatalf("unfinished inbox items after all turns: %d %v", len(left), err)
	}
}

func TestCommandsArePrivate(t *testing.T) {
	w := newWorld(t, "telegram", bot.Access{Platforms: map[string]bot.AccessList{"telegram": {AllowUsers: []string{"*"}}}})
	if err := w.db.EditMemory(t.Context(), "telegram:U1", agent.Profile, func([]string) ([]string, error) { return []string{"prefers Go"}, nil }); err != nil {
		t.Fatal(err)
	}
	// In a group, on a platform without ephemeral messages: DM + pointer.
	c := chat.Command{Key: "c1", Thread: chat.Thread{Platform: "telegram", Chat: "G1"}, User: chat.User{Platform: "telegram", ID: "U1", Name: "ana"}, Name: "memory"}
	if err := w.router.HandleCommand(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	sent, private := w.fake.snapshot()
	if len(private) != 1 || !strings.Contains(private[0], "U1|") || !strings.Contains(private[0], "prefers Go") {
		t.Fatalf("private answers: %q", private)
	}
	if len(sent) != 1 || strings.Contains(sent[0], "prefers Go") || !strings.Contains(sent[0], "direct message") {
		t.Fatalf("in-place messages: %q (memory must never appear there)", sent)
	}
	// Another user asking sees only their own (empty) memory.
	c2 := c
	c2.Key, c2.User = "c2", chat.User{Platform: "telegram", ID: "U2", Name: "bo"}
	w.router.HandleCommand(t.Context(), c2)
	_, private = w.fake.snapshot()
	if strings.Contains(private[1], "prefers Go") || !strings.HasPrefix(private[1], "U2|") {
		t.Fatalf("bo saw: %q", private[1])
	}
	// The text form works in threads too, and a repeated key is ignored.
	m := msg("telegram", "G1", "", "U1", "c3", "!memory")
	m.Mentioned = true
	w.router.HandleMessage(t.Context(), m)
	w.router.HandleMessage(t.Context(), m)
	if _, private = w.fake.snapshot(); len(private) != 3 {
		t.Fatalf("private answers after !memory twice: %d", len(private))
	}
}

func TestStopCancelsRunningTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.srv.Enqueue(llmtest.Stall("working on it"))
	m := msg("slack", "C1", "1.1", "U1", "k1", "long task")
	m.Mentioned = true
	w.router.HandleMessage(t.Context(), m)
	<-w.replies.streaming // the answer is being written
	if err := w.router.HandleCommand(t.Context(), chat.Command{Key: "stop1", Thread: m.Thread, User: m.User, Name: "stop"}); err != nil {
		t.Fatal(err)
	}
	w.router.Wait()
	finals := w.replies.final("k1")
	if len(finals) != 1 || !strings.Contains(finals[0], "stopped") {
		t.Fatalf("final after /stop: %q", finals)
	}
	if _, private := w.fake.snapshot(); len(private) != 1 || !strings.Contains(private[0], "Stopped.") {
		t.Fatalf("stop answer: %q", private)
	}
}

func TestUnknownButtonIsRefusedPrivately(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	var told string
	a := chat.Action{Key: "a1", Thread: chat.Thread{Platform: "slack", Chat: "C1"}, User: chat.User{Platform: "slack", ID: "U1"}, Data: "a:forged",
		Respond: func(_ context.Context, text string) error { told = text; return nil }}
	if err := w.router.HandleAction(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if told != "This button is no longer valid." {
		t.Fatalf("clicker was told %q", told)
	}
}

// blockingReply holds its Finish until released: an answer whose last
// delivery waits on the platform's pacing.
type blockingReply struct {
	fakeReply
	finishing chan<- string
	release   <-chan struct{}
}

func (r *blockingReply) Finish(ctx context.Context, final string) error {
	r.finishing <- r.key
	<-r.release
	return r.fakeReply.Finish(ctx, final)
}

// TestSlotFreedBeforeFinalDelivery: with one turn at a time, a turn whose
// model work is done hands its slot over while its answer is still being
// delivered, so another conversation starts instead of waiting on pacing.
func TestSlotFreedBeforeFinalDelivery(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	finishing := make(chan string, 2)
	release := make(chan struct{})
	router := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Reply: func(ctx context.Context, a chat.Adapter, key, sid string, th chat.Thread, u chat.User, replyTo string) (outbound.Reply, error) {
			r, _ := w.replies.factory(ctx, a, key, sid, th, u, replyTo)
			return &blockingReply{fakeReply: *r.(*fakeReply), finishing: finishing, release: release}, nil
		},
		MaxConcurrent: 1, Logger: slog.New(slog.DiscardHandler),
	}, w.fake)
	w.srv.Enqueue(llmtest.Text("first"), llmtest.Text("second"))
	for i, chat := range []string{"C1", "C2"} {
		m := msg("slack", chat, "", "U1", fmt.Sprint("k", i), "hello")
		m.Direct = true
		if err := router.HandleMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	// Both answers reach their final delivery while the first is still
	// held there: the second turn ran with the one slot.
	first := <-finishing
	defer router.Wait()
	defer close(release)
	select {
	case second := <-finishing:
		if second == first {
			t.Fatalf("final deliveries %s and %s, want both conversations'", first, second)
		}
	case <-time.After(15 * time.Second): // a hang, not a timing assertion
		t.Fatal("the second conversation waited for the first one's final delivery")
	}
}

// TestTurnsAreKept: each turn's end is counted with how it ended and its
// latency, for the console's overview; its messages are done.
func TestTurnsAreKept(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.srv.Enqueue(llmtest.Text("answered"), llmtest.Stall("working on it"))
	m := msg("slack", "C1", "1.1", "U1", "k1", "hello")
	m.Mentioned = true
	w.router.HandleMessage(t.Context(), m)
	w.router.Wait()
	long := msg("slack", "C1", "2.1", "U1", "k2", "long task")
	long.Mentioned = true
	w.router.HandleMessage(t.Context(), long)
	for k := range w.replies.streaming { // the first turn's may be there still
		if k == "k2" {
			break
		}
	}
	if err := w.router.HandleCommand(t.Context(), chat.Command{Key: "stop1", Thread: long.Thread, User: long.User, Name: "stop"}); err != nil {
		t.Fatal(err)
	}
	w.router.Wait()
	hours, err := w.db.TurnHours(t.Context(), time.Now().Add(-2*time.Hour), time.Now().Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[bot.TurnOutcome]int{}
	for _, h := range hours {
		if h.Latency <= 0 {
			t.Errorf("no latency kept: %+v", h) // the router saw both messages arrive
		}
		got[h.Outcome] += h.N
	}
	if want := map[bot.TurnOutcome]int{bot.TurnAnswered: 1, bot.TurnStopped: 1}; !maps.Equal(got, want) {
		t.Errorf("kept outcomes %v, want %v", got, want)
	}
	if items, err := w.db.Unfinished(t.Context()); err != nil || len(items) != 0 {
		t.Errorf("unfinished after the turns: %v, %v", items, err)
	}
}
