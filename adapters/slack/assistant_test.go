package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

func TestCutTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  short   and\nsweet ", "short and sweet"},
		{strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{"Summarize the decisions made in this channel this week, please, with owners",
			"Summarize the decisions made in this channel this week…"},
		{strings.Repeat("x", 80), strings.Repeat("x", 59) + "…"}, // one long word
		{strings.Repeat("ab ", 30), strings.TrimSpace(strings.Repeat("ab ", 20)) + "…"},
		{strings.Repeat("é", 30) + " " + strings.Repeat("é", 40), strings.Repeat("é", 30) + "…"},
	}
	for _, tt := range tests {
		got := cutTitle(tt.in, 60)
		if got != tt.want {
			t.Errorf("cutTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > 60 {
			t.Errorf("cutTitle(%q) has %d characters", tt.in, n)
		}
	}
}

func TestUntitledThreadsBounded(t *testing.T) {
	u := newUntitledThreads(3)
	for i := range 5 {
		u.add("D1", fmt.Sprint(i))
	}
	u.add("D1", "2") // re-started: most recent again
	u.add("D1", "5") // evicts "3"
	if n := u.len(); n != 3 {
		t.Fatalf("len = %d, want 3", n)
	}
	for _, ts := range []string{"0", "1", "3"} {
		if u.take("D1", ts) {
			t.Errorf("%s should have been evicted", ts)
		}
	}
	for _, ts := range []string{"2", "4", "5"} {
		if !u.take("D1", ts) || u.take("D1", ts) {
			t.Errorf("%s: want taken exactly once", ts)
		}
	}
	var none *untitledThreads
	none.add("D1", "1")
	if none.take("D1", "1") {
		t.Error("a nil set holds nothing")
	}
}

func TestManifestDeclaresTheSuggestedPrompts(t *testing.T) {
	m := Manifest("")
	for _, p := range suggestedPrompts() {
		if !strings.Contains(m, p.Title) || !strings.Contains(m, p.Message) {
			t.Errorf("manifest lacks prompt %+v", p)
		}
	}
}

// recordingHandler records the messages handed to it.
type recordingHandler struct {
	mu   sync.Mutex
	msgs []chat.Message
}

func (h *recordingHandler) HandleMessage(_ context.Context, m chat.Message) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, m)
	return nil
}
func (h *recordingHandler) HandleAction(context.Context, chat.Action) error   { return nil }
func (h *recordingHandler) HandleCommand(context.Context, chat.Command) error { return nil }

func (h *recordingHandler) messages() []chat.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]chat.Message(nil), h.msgs...)
}

type assistantFixture struct {
	srv  *slacktest.Server
	h    *recordingHandler
	logs *syncbuf.Buffer
	ctx  context.Context
	done chan error
}

// newAssistantFixture runs the real adapter in Socket Mode against the
// fake until the test ends.
func newAssistantFixture(t *testing.T) *assistantFixture {
	t.Helper()
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	logs := &syncbuf.Buffer{}
	ad, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/",
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.AddUser("UALICE", "alice")
	srv.AddChannel("DALICE", "DALICE", slacktest.IM)
	f := &assistantFixture{srv: srv, h: &recordingHandler{}, logs: logs, done: make(chan error, 1)}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	runCtx, stop := context.WithCancel(ctx)
	f.ctx = ctx
	go func() { f.done <- ad.Run(runCtx, f.h) }()
	t.Cleanup(func() {
		stop()
		<-f.done
		cancel()
	})
	return f
}

func (f *assistantFixture) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := f.srv.WaitFor(f.ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v\nlogs:\n%s", what, err, f.logs.String())
	}
}

func (f *assistantFixture) acked(id string) func() bool {
	return func() bool {
		for _, a := range f.srv.Acks() {
			if a.EnvelopeID == id {
				return true
			}
		}
		return false
	}
}

func (f *assistantFixture) running(t *testing.T) {
	t.Helper()
	select {
	case err := <-f.done:
		t.Fatalf("Run returned: %v", err)
	default:
	}
}

func TestAssistantThreadPromptsAndTitle(t *testing.T) {
	f := newAssistantFixture(t)
	const thread = "1700000000.999900"
	env := f.srv.AssistantThreadStarted("DALICE", thread, "UALICE")
	f.waitFor(t, "the start acked", f.acked(env))

	var got []prompt
	if err := json.Unmarshal(f.srv.SuggestedPrompts("DALICE", thread), &got); err != nil {
		t.Fatalf("suggested prompts: %v", err)
	}
	if want := suggestedPrompts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("suggested prompts = %+v, want %+v", got, want)
	}
	if n := len(f.h.messages()); n != 0 {
		t.Errorf("the start reached the handler %d times", n)
	}

	first := "Can you summarize what the platform team decided about the Q3 migration plan yesterday?"
	want := "Can you summarize what the platform team decided about the…"
	ts := f.srv.PostUserMessage("DALICE", "UALICE", first, thread)
	f.waitFor(t, "the title", func() bool { return f.srv.AssistantTitle("DALICE", thread) != "" })
	if got := f.srv.AssistantTitle("DALICE", thread); got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	msgs := f.h.messages()
	if len(msgs) != 1 || msgs[0].ID != ts || msgs[0].Text != first || msgs[0].Thread.ID != thread || !msgs[0].Direct {
		t.Fatalf("handler got %+v, want the first message", msgs)
	}

	second := f.srv.PostUserMessage("DALICE", "UALICE", "And who owns it?", thread)
	f.waitFor(t, "the second message handled", func() bool {
		m := f.h.messages()
		return len(m) == 2 && len(f.srv.Acks()) >= 3
	})
	if m := f.h.messages(); m[1].ID != second {
		t.Errorf("second message = %+v", m[1])
	}
	if got := f.srv.AssistantTitle("DALICE", thread); got != want {
		t.Errorf("title after a second message = %q, want it unchanged", got)
	}
	if n := len(f.srv.CallsTo("assistant.threads.setTitle")); n != 1 {
		t.Errorf("setTitle called %d times, want once", n)
	}
	// A DM thread that is no assistant thread gets no title.
	f.srv.PostUserMessage("DALICE", "UALICE", "an ordinary thread", "1700000000.111100")
	f.waitFor(t, "the ordinary message handled", func() bool { return len(f.h.messages()) == 3 })
	if got := f.srv.AssistantTitle("DALICE", "1700000000.111100"); got != "" {
		t.Errorf("ordinary thread titled %q", got)
	}
	f.running(t)
}

func TestAssistantPromptsFailureIsLogged(t *testing.T) {
	f := newAssistantFixture(t)
	const thread = "1700000000.888800"
	f.srv.FailNextError("assistant.threads.setSuggestedPrompts", 1, "missing_scope")
	env := f.srv.AssistantThreadStarted("DALICE", thread, "UALICE")
	f.waitFor(t, "the start acked", f.acked(env))
	if p := f.srv.SuggestedPrompts("DALICE", thread); p != nil {
		t.Errorf("prompts recorded despite the failure: %s", p)
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "suggested prompts not shown") || !strings.Contains(logs, "assistant:write") {
		t.Errorf("the failure is not logged with the scope to add:\n%s", logs)
	}
	f.running(t)

	// Run keeps going: the thread's first message is handled and titles it.
	f.srv.PostUserMessage("DALICE", "UALICE", "hello there", thread)
	f.waitFor(t, "the title", func() bool { return f.srv.AssistantTitle("DALICE", thread) == "hello there" })
	if n := len(f.h.messages()); n != 1 {
		t.Errorf("handler got %d messages, want 1", n)
	}
	f.running(t)
}

// len is how many threads wait for their title.
func (u *untitledThreads) len() int { return u.threads.Len() }
