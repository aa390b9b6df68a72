package main

// In-process tests of the platform runtime: real delivery, pacer,
// approvals, router and SQLite, with llmtest as the model and the bottest
// fake as the chat platform.

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// watched wraps the fake platform and signals every change the bot makes,
// so tests wait for events instead of sleeping.
type watched struct {
	*bottest.Adapter
	changed chan struct{}
}

func newWatched() *watched {
	caps := chat.Capabilities{
		MaxLen: 4000, SplitAt: 3900, EditEvery: 20 * time.Millisecond, EditBurst: 2,
		EditScope: chat.PacePerWorkspace, Buttons: true, Ephemeral: true, Typing: true,
	}
	return &watched{Adapter: bottest.New(bottest.Config{Platform: "slack", Capabilities: caps}), changed: make(chan struct{}, 1)}
}

func (w *watched) poke() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *watched) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	defer w.poke()
	return w.Adapter.Send(ctx, t, out)
}

func (w *watched) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	defer w.poke()
	return w.Adapter.Edit(ctx, ref, out)
}

// waitFor blocks until cond holds for the messages in t.
func (w *watched) waitFor(t *testing.T, th chat.Thread, what string, cond func([]bottest.Msg) bool) []bottest.Msg {
	t.Helper()
	deadline := time.After(30 * time.Second) // a hang, not a timing assertion
	for {
		if msgs := w.Messages(th); cond(msgs) {
			return msgs
		}
		select {
		case <-w.changed:
		case <-deadline:
			t.Fatalf("never saw %s; messages: %+v", what, w.Messages(th))
		}
	}
}

func platformConfig(t *testing.T, dataDir string, srv *llmtest.Server, extra map[string]string) *config.Config {
	t.Helper()
	env := map[string]string{
		"PARLEY_DATA_DIR":            dataDir,
		"XDG_CONFIG_HOME":            t.TempDir(),
		"PARLEY_LLM_OPENAI_API_KEY":  "sk-test",
		"PARLEY_LLM_OPENAI_BASE_URL": srv.OpenAIBaseURL(),
	}
	for k, v := range extra {
		env[k] = v
	}
	cfg, err := config.Load(config.LoadOptions{Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Platforms: platforms.All()})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// start runs Parley's platform runtime over fake until the returned stop
// is called; stop waits for it to return.
func start(t *testing.T, cfg *config.Config, fake chat.Adapter) (stop func()) {
	t.Helper()
	return startWith(t, cfg, nil, func(*app) []chat.Adapter { return []chat.Adapter{fake} })
}

// startPlatforms runs Parley as `parley run` does: the adapters of the
// platforms cfg enables, over the app's database.
func startPlatforms(t *testing.T, cfg *config.Config) (stop func()) {
	t.Helper()
	web := inboundServer(cfg, slog.New(slog.DiscardHandler))
	return startWith(t, cfg, web, func(a *app) []chat.Adapter {
		adapters, err := platformAdapters(cfg, a.db, web, a.ops, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return adapters
	})
}

// instance is Parley over one configuration, which a test can stop and
// start again over the same database (a restart, or an operator command
// run while it is down). Stop is idempotent; the test's cleanup stops it.
type instance struct {
	cfg  *config.Config
	halt func()
}

// startInstance starts Parley over cfg until the test ends.
func startInstance(t *testing.T, cfg *config.Config) *instance {
	t.Helper()
	p := &instance{cfg: cfg}
	p.start(t)
	t.Cleanup(p.stop)
	return p
}

// start (re)starts Parley over the same database.
func (p *instance) start(t *testing.T) {
	t.Helper()
	stop := startPlatforms(t, p.cfg)
	var once sync.Once
	p.halt = func() { once.Do(stop) }
}

// stop stops Parley, waiting for its turns to end.
func (p *instance) stop() { p.halt() }

func startWith(t *testing.T, cfg *config.Config, web *inbound.Server, adapters func(a *app) []chat.Adapter) (stop func()) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	a, err := openApp(t.Context(), cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	ads := adapters(a)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- runPlatforms(ctx, a, ads, web, logger) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runPlatforms: %v", err)
		}
		a.Close()
	}
}

var thread = chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}

func mention(key, user, text string) chat.Message {
	return chat.Message{
		Key: key, ID: key, Thread: thread, Text: text, Mentioned: true,
		User: chat.User{Platform: "slack", ID: user, Name: user},
	}
}

func TestPlatformApprovalWithButtons(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	fake := newWatched()
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), srv, map[string]string{"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TOOLS_APPROVAL_APPROVERS": "slack:ana"})
	stop := start(t, cfg, fake)
	defer stop()

	srv.Enqueue(llmtest.ToolCall("c1", "shell", `{"command":"echo approved-run"}`), llmtest.Text("All done."))
	if err := fake.InjectMessage(t.Context(), mention("T1:C1:1", "ana", "run the thing")); err != nil {
		t.Fatal(err)
	}
	msgs := fake.waitFor(t, thread, "an approval message", func(ms []bottest.Msg) bool {
		for _, m := range ms {
			if len(m.Buttons) == 2 {
				return true
			}
		}
		return false
	})
	var prompt bottest.Msg
	for _, m := range msgs {
		if len(m.Buttons) == 2 {
			prompt = m
		}
	}
	if !strings.Contains(prompt.Text, "shell") || !strings.Contains(prompt.Text, "echo approved-run") || len(prompt.Buttons[0].Data) > chat.MaxButtonData {
		t.Fatalf("approval message: %+v", prompt)
	}

	click := func(key, user, data string) string {
		var told string
		act := chat.Action{Key: key, Thread: thread, User: chat.User{Platform: "slack", ID: user, Name: user}, Data: data, Message: prompt.Ref,
			Respond: func(_ context.Context, text string) error { told = text; return nil }}
		if err := fake.InjectAction(t.Context(), act); err != nil {
			t.Fatal(err)
		}
		return told
	}
	approve := prompt.Buttons[0].Data
	if told := click("a1", "bo", approve); !strings.Contains(told, "Only an approver can approve this; ana can deny it") {
		t.Fatalf("a stranger's click was answered %q", told)
	}
	if told := click("a2", "ana", "a:forged-id"); !strings.Contains(told, "no longer valid") {
		t.Fatalf("a forged payload was answered %q", told)
	}
	click("a3", "ana", approve)
	msgs = fake.waitFor(t, thread, "the final answer", func(ms []bottest.Msg) bool {
		for _, m := range ms {
			if m.Text == "All done." {
				return true
			}
		}
		return false
	})
	for _, m := range msgs {
		if m.Ref == prompt.Ref && (!strings.Contains(m.Text, "Approved by ana") || len(m.Buttons) != 0) {
			t.Fatalf("decided approval message: %+v", m)
		}
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "approved-run") {
		t.Fatal("the approved command's output did not reach the model")
	}
	if d := fake.DuplicateFinals(); len(d) != 0 {
		t.Fatalf("duplicate finals: %+v", d)
	}
}

// TestKillMidStreamThenRestart: Parley stops while an answer streams; after
// the restart the same message is completed — exactly one full answer.
func TestKillMidStreamThenRestart(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	fake := newWatched()
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), srv, nil)

	stop := start(t, cfg, fake)
	srv.Enqueue(llmtest.Stall("The first half of the answer"))
	if err := fake.InjectMessage(t.Context(), mention("T1:C1:2", "ana", "explain it")); err != nil {
		t.Fatal(err)
	}
	first := fake.waitFor(t, thread, "the streamed half", func(ms []bottest.Msg) bool {
		return len(ms) == 1 && strings.Contains(ms[0].Text, "first half")
	})[0]
	stop() // the process goes away mid-stream

	srv.Enqueue(llmtest.Text("The complete answer."))
	stop = start(t, cfg, fake) // restart over the same database and platform
	defer stop()
	msgs := fake.waitFor(t, thread, "the completed answer", func(ms []bottest.Msg) bool {
		return len(ms) > 0 && ms[0].Text == "The complete answer."
	})
	if len(msgs) != 1 || msgs[0].Ref != first.Ref {
		t.Fatalf("want the one message %v completed in place, got %+v", first.Ref, msgs)
	}
	if d := fake.DuplicateFinals(); len(d) != 0 {
		t.Fatalf("duplicate finals: %+v", d)
	}
}
