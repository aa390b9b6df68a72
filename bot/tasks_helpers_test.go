package bot_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// TestHelperApprovalInTheThread: a task's helper that needs an approval
// asks for it in the task's thread, on its author's behalf, through the
// real approvals; a stranger's click decides nothing; the author's runs
// the helper's tool once, and the helper's result reaches the task's
// next step and its one final answer.
func TestHelperApprovalInTheThread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTaskWorld(t, &workTool{}, 0)
		setup := w.setup
		w.setup = func(cfg *bot.CoreConfig, db *store.DB) {
			setup(cfg, db)
			delegate, err := task.Delegation{Tasks: task.Tasks{Store: db}, Helpers: db}.Tool()
			if err != nil {
				t.Fatal(err)
			}
			cfg.Runner.Tools = append(cfg.Runner.Tools, delegate)
			cfg.Helpers = db
		}
		deleg, _ := json.Marshal(task.DelegateArgs{Helpers: []task.HelperArgs{{Item: 1, Instruction: "deploy the service"}}})
		w.start(t,
			step(todo("p1", "deploy:in_progress")),
			step(llm.ToolCall{ID: "g1", Name: "delegate", Arguments: deleg}),
			step(llm.ToolCall{ID: "h1", Name: "deploy", Arguments: json.RawMessage(`{}`)}), // the helper
			text("Deployed the service."),                                                  // the helper's result
			step(todo("p2", "deploy:done")),
			text("Deployed."),
			text("Checked: deployed."),
		)
		defer w.stop(t)
		inject(t, w, coreMention("k1", "ana", "deploy, with a helper"))
		settle()
		prompt := w.approvalPrompt(t, coreThread)
		if !strings.Contains(prompt.Text, "ana") {
			t.Errorf("the helper's approval is not asked on ana's behalf: %q", prompt.Text)
		}
		click := func(key, user string) {
			t.Helper()
			a := chat.Action{Key: key, Thread: coreThread, User: chat.User{Platform: "slack", ID: user, Name: user},
				Data: prompt.Buttons[0].Data, Message: prompt.Ref}
			if err := w.fake.InjectAction(t.Context(), a); err != nil {
				t.Fatal(err)
			}
			settle()
		}
		click("c1", "mallory")
		if w.tool.runs != 0 {
			t.Fatal("a stranger's click ran the helper's tool")
		}
		click("c2", "ana")
		if w.tool.runs != 1 {
			t.Fatalf("the helper's tool ran %d times after ana approved, want 1", w.tool.runs)
		}
		var finals []string
		for _, m := range w.fake.Messages(coreThread) {
			if strings.HasPrefix(m.Text, "Checked") || strings.HasPrefix(m.Text, "Deployed") {
				finals = append(finals, m.Text)
			}
		}
		if len(finals) != 1 || finals[0] != "Checked: deployed." {
			t.Fatalf("want the task's one final answer: %q", finals)
		}
		sid := sessionOf(t, w, coreThread)
		helpers, err := w.db.Helpers(t.Context(), sid)
		if err != nil || len(helpers) != 1 || helpers[0].Status != task.HelperDone || helpers[0].Result != "Deployed the service." {
			t.Fatalf("helpers: %+v %v", helpers, err)
		}
		if st := stateOf(t, w, sid); st != task.Idle {
			t.Errorf("task state %s after its answer, want idle", st)
		}
	})
}
