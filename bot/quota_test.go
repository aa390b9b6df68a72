package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

// quotaWorld is the core with limits, over a fake platform whose private
// messages are the notices people get.
func quotaWorld(t *testing.T, lim bot.Limits, tools []agent.Tool, script ...llm.Response) *coreWorld {
	t.Helper()
	caps := chat.Capabilities{MaxLen: 4000, Buttons: true, Ephemeral: true}
	w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: caps, LimitEvery: -1}))
	w.limits, w.tools = lim, tools
	w.access = bot.Access{Admins: []string{"slack:root"}}
	w.start(t, script...)
	return w
}

// dm is a direct message from user in their own DM.
func dm(user string, n int, text string) chat.Message {
	return chat.Message{Key: fmt.Sprintf("%s-%d", user, n), ID: fmt.Sprint(n), Text: text, Direct: true,
		Thread: chat.Thread{Platform: "slack", Space: "W", Chat: "D-" + user},
		User:   chat.User{Platform: "slack", ID: user, Name: user}}
}

// notices returns what user was told privately.
func (w *coreWorld) notices(user string) []string {
	var out []string
	for _, c := range w.fake.Private() {
		if c.User.ID == user {
			out = append(out, c.Out.Text)
		}
	}
	return out
}

func TestTurnsPerMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := quotaWorld(t, bot.Limits{TurnsPerMinute: 3}, nil, llm.Response{Text: "ok"})
		defer w.stop(t)
		for i := range 5 {
			inject(t, w, dm("ann", i, "hello"))
			inject(t, w, dm("root", i, "hello"))
			synctest.Wait()
		}
		if n := w.model.calls.Load(); n != 3+5 {
			t.Fatalf("%d model calls, want 3 for ann and 5 for the admin", n)
		}
		if got := w.notices("ann"); len(got) != 2 || !strings.Contains(got[0], "more than 3 messages a minute") {
			t.Fatalf("ann was told %q", got)
		}
		if got := w.notices("root"); len(got) != 0 {
			t.Fatalf("the admin was limited: %q", got)
		}
		time.Sleep(time.Minute)
		inject(t, w, dm("ann", 9, "hello again"))
		synctest.Wait()
		if n := w.model.calls.Load(); n != 9 {
			t.Fatalf("a minute later ann is still refused (%d model calls)", n)
		}
		if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
			t.Fatalf("refused messages left open in the inbox: %+v", left)
		}
	})
}

func TestDailyTokenBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := quotaWorld(t, bot.Limits{DailyTokens: 100}, nil,
			llm.Response{Text: "ok", Usage: llm.Usage{InputTokens: 70, OutputTokens: 40}})
		defer w.stop(t)
		inject(t, w, dm("ann", 1, "hello"))
		synctest.Wait()
		inject(t, w, dm("ann", 2, "more"))
		synctest.Wait()
		if n := w.model.calls.Load(); n != 1 {
			t.Fatalf("%d model calls, want 1: the budget was spent", n)
		}
		if got := w.notices("ann"); len(got) != 1 || !strings.Contains(got[0], "today's budget of 100 model tokens") {
			t.Fatalf("ann was told %q", got)
		}
		if err := w.fake.InjectCommand(t.Context(), chat.Command{Key: "s1", Thread: dm("ann", 0, "").Thread, User: dm("ann", 0, "").User, Name: "status", Direct: true}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := w.notices("ann"); !strings.Contains(got[len(got)-1], "0 of 100 tokens left today") {
			t.Fatalf("/status says %q", got[len(got)-1])
		}
		time.Sleep(24 * time.Hour) // a new UTC day
		inject(t, w, dm("ann", 3, "tomorrow"))
		synctest.Wait()
		if n := w.model.calls.Load(); n != 2 {
			t.Fatalf("the budget did not renew (%d model calls)", n)
		}
	})
}

func TestQueueCapAndMessageSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
		w := quotaWorld(t, bot.Limits{QueueMessages: 2, MessageChars: 10}, []agent.Tool{gate},
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "b1", Name: "build", Arguments: []byte(`{}`)}}}, llm.Response{Text: "done"})
		defer w.stop(t)
		inject(t, w, dm("ann", 0, "build it"))
		<-gate.entered
		for i := 1; i <= 4; i++ {
			inject(t, w, dm("ann", i, fmt.Sprintf("and %d more, with a long tail", i)))
		}
		synctest.Wait()
		got := w.notices("ann")
		full := 0
		for _, n := range got {
			if strings.Contains(n, "already waiting in this conversation") {
				full++
			}
		}
		if full != 2 {
			t.Fatalf("want 2 refusals of a full queue, got %q", got)
		}
		cut := 0
		for _, n := range got {
			if strings.Contains(n, "I read only the first 10") {
				cut++
			}
		}
		if cut != 2 {
			t.Fatalf("want the 2 queued messages' authors told of the cut, got %q", got)
		}
		close(gate.release)
		synctest.Wait()
		reqs := w.model.requests()
		var text strings.Builder
		for _, m := range reqs[len(reqs)-1].Messages {
			text.WriteString(m.Text + "\n")
		}
		if got := text.String(); !strings.Contains(got, "and 1 more\n\n[Parley: this message was cut to its first 10 of") ||
			strings.Contains(got, "long tail") || strings.Contains(got, "and 3") {
			t.Fatalf("the model read %q", got)
		}
	})
}
