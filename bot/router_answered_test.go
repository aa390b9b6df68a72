package bot_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// watchingFake is a chat platform that waits for answers (a terminal).
type watchingFake struct {
	*chatFake
	answered chan string
}

func (f watchingFake) Answered(key string) { f.answered <- key }

// TestAnsweredOncePerMessage: an adapter that waits for answers hears of
// every message it handed over once the router is done with it, whether
// the turn answered it, failed, or there was nothing to answer; and only
// after the reply is finished.
func TestAnsweredOncePerMessage(t *testing.T) {
	allowOne := bot.Access{Platforms: map[string]bot.AccessList{"telegram": {AllowUsers: []string{"42"}}}}
	tests := []struct {
		name     string
		reply    *llmtest.Reply // nil: the model is not asked
		m        func(chat.Message) chat.Message
		finished bool // a reply is finished before Answered
	}{
		{"answered", new(llmtest.Text("Hello.")), func(m chat.Message) chat.Message { return m }, true},
		{"the model fails", new(llmtest.Status(400)), func(m chat.Message) chat.Message { return m }, true},
		{"a bot's message", nil, func(m chat.Message) chat.Message { m.FromBot = true; return m }, false},
		{"a stranger", nil, func(m chat.Message) chat.Message { m.User.ID = "99"; return m }, false},
		{"a command", nil, func(m chat.Message) chat.Message { m.Text = "/help"; return m }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "telegram", allowOne)
			fake := watchingFake{chatFake: w.fake, answered: make(chan string, 4)}
			w.router = newRouter(t, bot.RouterConfig{
				Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner,
				Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
				Access:   allowOne, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
			}, fake)
			if tt.reply != nil {
				w.srv.Enqueue(*tt.reply)
			}
			m := tt.m(msg("telegram", "42", "", "42", "k1", "hi"))
			m.Direct = true
			if err := w.router.HandleMessage(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			select {
			case key := <-fake.answered:
				if key != "k1" {
					t.Fatalf("Answered(%q), want k1", key)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Answered was never called")
			}
			if got := len(w.replies.final("k1")) == 1; got != tt.finished {
				t.Errorf("reply finished before Answered = %v, want %v", got, tt.finished)
			}
			w.router.Wait()
			if len(fake.answered) != 0 {
				t.Errorf("Answered called again with %q", <-fake.answered)
			}
		})
	}
}
