package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

func TestClearMemoryWithButton(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.fake.buttons = true
	ana := chat.User{Platform: "slack", ID: "U1", Name: "ana"}
	th := chat.Thread{Platform: "slack", Space: "W", Chat: "C1"}
	if err := w.db.EditMemory(t.Context(), ana.Key(), agent.Facts, func([]string) ([]string, error) { return []string{"ships on Fridays"}, nil }); err != nil {
		t.Fatal(err)
	}
	if err := w.router.HandleCommand(t.Context(), chat.Command{Key: "c1", Thread: th, User: ana, Name: "memory", Args: []string{"clear"}}); err != nil {
		t.Fatal(err)
	}
	if mem, _ := w.db.Memory(t.Context(), ana.Key()); mem.Empty() {
		t.Fatal("memory cleared before confirmation")
	}
	outs := w.fake.privateOut
	if len(outs) != 1 || len(outs[0].Buttons) != 1 || len(outs[0].Buttons[0].Data) > chat.MaxButtonData {
		t.Fatalf("confirmation: %+v", outs)
	}
	data := outs[0].Buttons[0].Data
	click := func(key string, u chat.User, data string) string {
		var told string
		err := w.router.HandleAction(t.Context(), chat.Action{Key: key, Thread: th, User: u, Data: data,
			Respond: func(_ context.Context, text string) error { told = text; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return told
	}
	if told := click("a1", chat.User{Platform: "slack", ID: "U2", Name: "bo"}, data); !strings.Contains(told, "Only the person who asked") {
		t.Fatalf("another user's click: %q", told)
	}
	if told := click("a2", ana, "mc:0000"); !strings.Contains(told, "no longer valid") {
		t.Fatalf("forged token: %q", told)
	}
	if mem, _ := w.db.Memory(t.Context(), ana.Key()); mem.Empty() {
		t.Fatal("memory cleared by someone else's or a forged click")
	}
	if told := click("a3", ana, data); !strings.Contains(told, "no longer remember") {
		t.Fatalf("owner's click: %q", told)
	}
	if mem, _ := w.db.Memory(t.Context(), ana.Key()); !mem.Empty() {
		t.Fatalf("memory after confirmation: %+v", mem)
	}
	if told := click("a4", ana, data); !strings.Contains(told, "no longer valid") {
		t.Fatalf("second click: %q", told)
	}
}

func TestStatus(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	m := msg("slack", "C1", "1.1", "U1", "k1", "hello")
	m.Mentioned = true
	w.srv.Enqueue(llmtest.Text("hi"))
	w.router.HandleMessage(t.Context(), m)
	w.router.Wait()
	sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
	info, err := w.db.Session(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	now := info.CreatedAt.Add(90 * time.Minute)
	for _, call := range []string{"c1", "c2"} {
		if _, _, err := w.db.CreateApproval(t.Context(), approvals.Record{ID: "ap-" + call, SessionID: sid, ToolCallID: call,
			ToolName: "shell", Requester: m.User.Key(), Status: approvals.StatusPending, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{w.fake}})
	if err != nil {
		t.Fatal(err)
	}
	// An answer a fallback model wrote, with what its call cost.
	if err := w.db.AppendMessages(t.Context(), sid, llm.Message{Role: llm.RoleAssistant, Text: "later", Model: "anthropic/claude-haiku-4-5",
		Usage: &llm.Usage{InputTokens: 20000, CachedTokens: 12345}}); err != nil {
		t.Fatal(err)
	}
	w.runner.ContextWindow = 1000
	r := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Reply: w.replies.factory, Model: "openai/gpt-test", Approvals: &approvals.Config{Store: w.db}, Outbound: out, Now: func() time.Time { return now },
	}, w.fake)
	if err := r.HandleCommand(t.Context(), chat.Command{Key: "s1", Thread: m.Thread, User: m.User, Name: "status"}); err != nil {
		t.Fatal(err)
	}
	_, private := w.fake.snapshot()
	got := private[len(private)-1]
	for _, want := range []string{"You are " + m.User.Key() + " here.", "Model: openai/gpt-test", "Last answer by: anthropic/claude-haiku-4-5 (fallback)", "of 1000 tokens (",
		"Cache: 12,345 of 20,", " input tokens cached this session", "3 messages", "started 1h30m0s ago", "Now: idle", "Waiting for approval: 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}
}
