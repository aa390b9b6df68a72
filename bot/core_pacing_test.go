package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// TestEveryOutboundKindIsPaced: on a platform that allows one message a
// second per chat (and answers 429 past it), three of each kind of message
// Parley shows, asked for at the same instant in one chat, all arrive with
// no 429 at all: answers, approval prompts, approval decisions, command
// answers' notices, refusals and the "could not message you" notice.
func TestEveryOutboundKindIsPaced(t *testing.T) {
	deploy := llm.Response{ToolCalls: []llm.ToolCall{{ID: "d1", Name: "deploy", Arguments: []byte(`{}`)}}}
	users := []string{"ana", "bo", "cy"}
	tests := []struct {
		name   string
		access bot.Access
		script []llm.Response
		act    func(t *testing.T, w *coreWorld)
		want   func(w *coreWorld) int // messages of the kind shown
	}{
		{"answers", bot.Access{}, []llm.Response{{Text: "Here you are."}}, func(t *testing.T, w *coreWorld) {
			for i, u := range users {
				inject(t, w, inChat(coreMention(fmt.Sprint("m", i), u, "hello"), i))
			}
		}, func(w *coreWorld) int { return countText(w, "Here you are.") }},
		{"approval prompts", bot.Access{}, []llm.Response{deploy}, func(t *testing.T, w *coreWorld) {
			for i, u := range users {
				inject(t, w, inChat(coreMention(fmt.Sprint("m", i), u, "deploy"), i))
			}
		}, func(w *coreWorld) int { return countText(w, "Approval needed") }},
		{"approval decisions", bot.Access{}, []llm.Response{deploy, deploy, deploy, {Text: "Done."}}, func(t *testing.T, w *coreWorld) {
			for i, u := range users {
				inject(t, w, inChat(coreMention(fmt.Sprint("m", i), u, "deploy"), i))
			}
			time.Sleep(time.Minute) // every prompt is shown
			synctest.Wait()
			for i, m := range w.fake.AllMessages() {
				if len(m.Buttons) == 2 {
					user := chat.User{Platform: "slack", ID: users[0], Name: users[0]}
					for j, u := range users {
						if m.Ref.Thread == inChat(coreMention("", u, ""), j).Thread {
							user = chat.User{Platform: "slack", ID: u, Name: u}
						}
					}
					act := chat.Action{Key: fmt.Sprint("c", i), Thread: m.Ref.Thread, User: user, Data: m.Buttons[1].Data, Message: m.Ref}
					if err := w.fake.InjectAction(t.Context(), act); err != nil {
						t.Fatal(err)
					}
				}
			}
		}, func(w *coreWorld) int { return countText(w, "Denied by") }},
		{"command answers", bot.Access{}, nil, func(t *testing.T, w *coreWorld) {
			for i, u := range users {
				c := chat.Command{Key: fmt.Sprint("s", i), Thread: coreThread, User: chat.User{Platform: "slack", ID: u, Name: u}, Name: "help"}
				if err := w.fake.InjectCommand(t.Context(), c); err != nil {
					t.Fatal(err)
				}
			}
		}, func(w *coreWorld) int { return countText(w, "in a direct message") }},
		{"notices", bot.Access{}, nil, func(t *testing.T, w *coreWorld) {
			w.fake.FailNext(bottest.OpSendPrivate, 3, fmt.Errorf("cannot open a DM"))
			for i, u := range users {
				c := chat.Command{Key: fmt.Sprint("s", i), Thread: coreThread, User: chat.User{Platform: "slack", ID: u, Name: u}, Name: "help"}
				if err := w.fake.InjectCommand(t.Context(), c); err != nil {
					t.Fatal(err)
				}
			}
		}, func(w *coreWorld) int { return countText(w, "could not message you privately") }},
		{"refusals", bot.Access{Platforms: map[string]bot.AccessList{"slack": {AllowUsers: []string{"someone-else"}}}}, nil, func(t *testing.T, w *coreWorld) {
			for i, u := range users {
				inject(t, w, coreMention(fmt.Sprint("m", i), u, "hello"))
			}
		}, func(w *coreWorld) int { return countText(w, "only talk to people") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := bottest.DefaultCapabilities() // one call a second per chat, enforced
				caps.Ephemeral = false
				w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: caps}))
				w.access = tt.access
				script := tt.script
				if script == nil {
					script = []llm.Response{{Text: "unused"}}
				}
				w.start(t, script...)
				defer w.stop(t)
				tt.act(t, w)
				time.Sleep(time.Minute) // fake time: every paced call has its turn
				synctest.Wait()
				if n := w.fake.RateLimited(); n != 0 {
					t.Errorf("the platform answered 429 %d times", n)
				}
				if got := tt.want(w); got != len(users) {
					t.Errorf("%d messages of the kind shown, want %d: %+v", got, len(users), w.fake.AllMessages())
				}
			})
		})
	}
}

// inChat puts m in its own thread of the same chat: threads share the
// chat's budget.
func inChat(m chat.Message, i int) chat.Message {
	m.Thread.ID = fmt.Sprintf("100.%d", i+1)
	return m
}

func inject(t *testing.T, w *coreWorld, m chat.Message) {
	t.Helper()
	if err := w.fake.InjectMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

func countText(w *coreWorld, sub string) int {
	n := 0
	for _, m := range w.fake.AllMessages() {
		if strings.Contains(m.Text, sub) {
			n++
		}
	}
	return n
}

// telegramLike has the real Telegram adapter's capabilities and its answer
// to "can this conversation stream?", over the fake platform.
type telegramLike struct {
	*bottest.Adapter
	tg *telegram.Adapter
}

func (a telegramLike) Capabilities() chat.Capabilities { return a.tg.Capabilities() }
func (a telegramLike) StreamsIn(t chat.Thread) bool    { return a.tg.StreamsIn(t) }
func (a telegramLike) StartStream(ctx context.Context, t chat.Thread, u chat.User) (chat.Stream, error) {
	return a.tg.StartStream(ctx, t, u)
}

// TestTelegramGroupReplyFirstFrame: a group cannot stream (drafts are
// private-chat only), which Telegram's adapter knows without a call; the
// first message of a group reply is sent when its first frame is due (one
// second), not one group pacing interval (3 s) later.
func TestTelegramGroupReplyFirstFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		state, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer state.Close()
		tg, err := telegram.New(telegram.Config{Token: "1:test", APIURL: "http://127.0.0.1:1", State: state})
		if err != nil {
			t.Fatal(err)
		}
		fake := telegramLike{Adapter: bottest.New(bottest.Config{Platform: "telegram", Capabilities: tg.Capabilities(), LimitEvery: -1}), tg: tg}
		out, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{fake}, Outbox: &bottest.Outbox{}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		group := chat.Thread{Platform: "telegram", Chat: "-1001", ID: "7"}
		start := time.Now()
		reply, err := out.Begin(t.Context(), "k1", "s1", group, chat.User{Platform: "telegram", ID: "42"}, "7")
		if err != nil {
			t.Fatal(err)
		}
		reply.Delta(t.Context(), "Hello")
		time.Sleep(time.Second)
		synctest.Wait()
		sent := fake.Sent()
		if len(sent) != 1 || !sent[0].At.Equal(start.Add(time.Second)) {
			t.Fatalf("first message sent %v after the first text (calls %+v), want after 1s", sinceFirst(sent, start), fake.Calls())
		}
		reply.Finish(t.Context(), "Hello there.")
	})
}

func sinceFirst(sent []bottest.Call, start time.Time) any {
	if len(sent) == 0 {
		return "never"
	}
	return sent[0].At.Sub(start)
}
