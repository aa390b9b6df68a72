package bot_test

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// TestControlIsTheStartersOrAdmins: in Alice's shared thread, Bob (neither
// the author of the running turn, the thread's starter nor an admin) can
// neither stop her answer nor rebind her thread; he is told so privately.
// Alice can, and so can an admin; in his own direct chat Bob can.
func TestControlIsTheStartersOrAdmins(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{Admins: []string{"slack:root"}})
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	w.runner.Tools = append(w.runner.Tools, gate)
	w.srv.Enqueue(llmtest.ToolCall("b1", "build", `{}`), llmtest.Text("Built."))
	alice := msg("slack", "C1", "1.1", "alice", "k1", "build it")
	alice.Mentioned = true
	w.router.HandleMessage(t.Context(), alice)
	<-gate.entered
	sid, _, _ := w.db.BoundSession(t.Context(), alice.Thread)

	bob := chat.User{Platform: "slack", ID: "bob", Name: "bob"}
	for i, name := range []string{"stop", "new"} {
		if err := w.router.HandleCommand(t.Context(), chat.Command{Key: "b" + name, Thread: alice.Thread, User: bob, Name: name}); err != nil {
			t.Fatal(err)
		}
		_, private := w.fake.snapshot()
		if len(private) != i+1 || !strings.HasPrefix(private[i], "bob|Only the person who started this conversation") {
			t.Fatalf("/%s by bob answered %q", name, private)
		}
	}
	if now, _, _ := w.db.BoundSession(t.Context(), alice.Thread); now != sid {
		t.Fatal("bob's /new rebound alice's thread")
	}
	close(gate.release)
	w.router.Wait()
	if got := w.replies.final("k1"); len(got) != 1 || got[0] != "Built." {
		t.Fatalf("alice's answer after bob's /stop: %q", got)
	}

	// The starter and an admin may; so may anyone in their own DM.
	for _, c := range []chat.Command{
		{Key: "a-new", Thread: alice.Thread, User: alice.User, Name: "new"},
		{Key: "r-new", Thread: alice.Thread, User: chat.User{Platform: "slack", ID: "root", Name: "root"}, Name: "new"},
		{Key: "b-dm", Thread: chat.Thread{Platform: "slack", Space: "W", Chat: "D9"}, User: bob, Name: "new", Direct: true},
	} {
		if err := w.router.HandleCommand(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		_, private := w.fake.snapshot()
		if last := private[len(private)-1]; !strings.Contains(last, "Started a new conversation") {
			t.Errorf("/new by %s: %q", c.User.ID, last)
		}
	}
}
