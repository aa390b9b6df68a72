package bot_test

import (
	"log/slog"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// TestMemoryCommandsAudited: /memory forget and /memory clear yes are on
// record — who, which list, how many — and never the entries themselves.
func TestMemoryCommandsAudited(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	r := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Audit: w.db,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Reply:    w.replies.factory, Logger: slog.New(slog.DiscardHandler),
	}, w.fake)
	for _, e := range []struct {
		target agent.MemoryTarget
		text   []string
	}{{agent.Profile, []string{"Ana, platform lead"}}, {agent.Facts, []string{"the staging password is hunter2", "deploys on Tuesdays"}}} {
		if err := w.db.EditMemory(t.Context(), "slack:ana", e.target, func([]string) ([]string, error) { return e.text, nil }); err != nil {
			t.Fatal(err)
		}
	}
	ana := chat.User{Platform: "slack", ID: "ana", Name: "Ana"}
	thread := chat.Thread{Platform: "slack", Space: "W", Chat: "D1"}
	for i, args := range [][]string{{"forget", "2"}, {"forget", "9"}, {"clear", "yes"}} {
		c := chat.Command{Key: "c" + string(rune('a'+i)), Thread: thread, User: ana, Name: "memory", Args: args, Direct: true}
		if err := r.HandleCommand(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	log, err := w.db.AuditEntries(t.Context(), bot.AuditFilter{Action: "memory."}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first; "forget 9" named no entry and changed nothing.
	want := []bot.AuditEntry{
		{Actor: "slack:ana", Action: "memory.clear", Target: "slack:ana", Detail: "2 erased", Via: "chat"},
		{Actor: "slack:ana", Action: "memory.forget", Target: "slack:ana", Detail: "facts", Via: "chat"},
	}
	if len(log) != len(want) {
		t.Fatalf("audit: %+v", log)
	}
	for i, e := range log {
		if e.Actor != want[i].Actor || e.Action != want[i].Action || e.Target != want[i].Target || e.Detail != want[i].Detail || e.Via != want[i].Via {
			t.Errorf("entry %d: %+v, want %+v", i, e, want[i])
		}
	}
}
