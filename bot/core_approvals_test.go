package bot_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

// shellLike is a tool whose approval only an approver may give, as
// shell's: its requester may not approve it.
type shellLike struct{ countingTool }

func (s *shellLike) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "shell", Description: "run a command", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *shellLike) Name() string          { return t.Spec().Name }
func (*shellLike) ApprovalMandatory() bool { return true }

// TestCoreDecideApprovalFromConsole: a turn waits on a shell-like
// approval; the console refuses its requester, then an approver's decision
// edits the chat message to say it came from the console, and the waiting
// turn goes on: the tool runs once, the answer comes once. Deciding again
// changes nothing.
func TestCoreDecideApprovalFromConsole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: chat.Capabilities{MaxLen: 4000, Buttons: true, Ephemeral: true}}))
		shell := &shellLike{}
		w.tools = append(w.tools, shell)
		w.access = bot.Access{Admins: []string{"slack:root"}}
		var core *bot.Core
		w.onCore = func(c *bot.Core) { core = c }
		w.start(t, llm.Response{ToolCalls: []llm.ToolCall{{ID: "s1", Name: "shell", Arguments: []byte(`{}`)}}}, llm.Response{Text: "Ran it."})
		defer w.stop(t)
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "run it")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		prompt := w.approvalPrompt(t, coreThread)
		pending, err := core.PendingApprovals(t.Context())
		if err != nil || len(pending) != 1 || pending[0].ToolName != "shell" || !pending[0].Mandatory {
			t.Fatalf("PendingApprovals = %+v, %v; want the shell call", pending, err)
		}
		id := pending[0].ID
		if prompt.Buttons[0].Data != approvals.ApproveData+id {
			t.Fatalf("the prompt's button %q is not approval %s", prompt.Buttons[0].Data, id)
		}

		ana := chat.User{Platform: "slack", ID: "ana", Name: "ana"}
		root := chat.User{Platform: "slack", ID: "root", Name: "Root"}
		decide := func(u chat.User, approve bool) approvals.Outcome {
			t.Helper()
			out, err := core.DecideApproval(t.Context(), id, u, approve)
			if err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			return out
		}
		if out := decide(ana, true); out.Decided || !strings.HasPrefix(out.Text, "Only an approver can approve this") {
			t.Fatalf("the requester approving her own shell call: %+v", out)
		}
		if shell.runs != 0 {
			t.Fatal("the tool ran on a refused decision")
		}
		if out := decide(root, true); !out.Decided || out.Status != approvals.StatusApproved {
			t.Fatalf("the approver approving: %+v", out)
		}
		if out := decide(root, false); out.Decided || out.Text != "Already approved by Root." {
			t.Fatalf("deciding again: %+v", out)
		}
		if shell.runs != 1 {
			t.Fatalf("the tool ran %d times, want 1", shell.runs)
		}
		var edited, answers int
		for _, c := range w.fake.Calls() {
			if c.Err != nil {
				continue
			}
			if c.Ref.ID == prompt.Ref.ID && strings.Contains(c.Out.Text, "Approved by Root (console)") {
				edited++
			}
			if c.Out.Text == "Ran it." {
				answers++
			}
		}
		if edited != 1 || answers != 1 {
			t.Fatalf("message edited to the console's decision %d times, answered %d times; want 1 and 1: %+v", edited, answers, w.fake.Calls())
		}
		if pending, err := core.PendingApprovals(t.Context()); err != nil || len(pending) != 0 {
			t.Errorf("PendingApprovals after = %+v, %v", pending, err)
		}
		hist, err := core.ApprovalHistory(t.Context(), approvals.HistoryFilter{DecidedBy: root.Key()}, 10)
		if err != nil || len(hist) != 1 || hist[0].ID != id || hist[0].DecidedByName != "Root" {
			t.Errorf("ApprovalHistory = %+v, %v", hist, err)
		}
	})
}
