package bot_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
)

// entered tells a test that its tool began to run, and what it returned.
type entered struct {
	agent.Tool
	began   chan struct{}
	results chan string
}

func (e entered) Execute(ctx context.Context, c agent.Caller, args json.RawMessage) (string, error) {
	e.began <- struct{}{}
	out, err := e.Tool.Execute(ctx, c, args)
	e.results <- out
	return out, err
}

// TestWaitEndsOnTheAuthorsReply: Alice's task waits for her answer. Bob
// writing in the thread meanwhile does not end the wait — it times out (he
// gets a turn of his own); when she waits again, Alice's reply ends it,
// and her next model call reads it after the wait's result.
func TestWaitEndsOnTheAuthorsReply(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	// The runner's clock: a wait times out when the test says so.
	timeout := make(chan struct{})
	w.runner.Sleep = func(ctx context.Context, _ time.Duration) error {
		select {
		case <-timeout:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	wait, err := task.Wait(nil)
	if err != nil {
		t.Fatal(err)
	}
	tool := entered{wait, make(chan struct{}, 2), make(chan string, 2)}
	w.runner.Tools = append(w.runner.Tools, tool)
	call := `{"for":"reply","timeout_seconds":1800}`
	w.srv.Enqueue(
		llmtest.ToolCall("w1", "wait", call), llmtest.ToolCall("w2", "wait", call), llmtest.Text("Deploying on port 8080."), // Alice's turn
		llmtest.Text("Hi Bob."), // Bob's
	)
	alice := msg("slack", "C1", "1.1", "alice", "k1", "deploy it; I will tell you the port")
	alice.Mentioned = true
	w.router.HandleMessage(t.Context(), alice)
	<-tool.began
	if err := w.router.HandleMessage(t.Context(), msg("slack", "C1", "1.1", "bob", "k2", "hello all")); err != nil {
		t.Fatal(err)
	}
	timeout <- struct{}{} // taken by the first wait, unless Bob ended it
	if got := <-tool.results; !strings.HasPrefix(got, task.WaitTimedOut) {
		t.Fatalf("Bob's message ended Alice's wait: %q", got)
	}
	<-tool.began
	if err := w.router.HandleMessage(t.Context(), msg("slack", "C1", "1.1", "alice", "k3", "port 8080")); err != nil {
		t.Fatal(err)
	}
	if got := <-tool.results; !strings.HasPrefix(got, task.WaitReplied) {
		t.Fatalf("Alice's reply did not end her wait: %q", got)
	}
	w.router.Wait()
	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4 (Alice's three, Bob's one)", len(reqs))
	}
	third := string(reqs[2].Body)
	if !strings.Contains(third, "port 8080") || strings.Contains(third, "hello all") {
		t.Fatalf("Alice's third call does not read her reply after the wait, or reads Bob's: %s", third)
	}
	if got := w.replies.final("k1"); len(got) != 1 || got[0] != "Deploying on port 8080." {
		t.Fatalf("Alice's reply: %q", got)
	}
	if got := w.replies.final("k2"); len(got) != 1 || got[0] != "Hi Bob." {
		t.Fatalf("Bob's reply: %q", got)
	}
}
