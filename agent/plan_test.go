package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/task"
)

// withTasks gives the harness the todo tool and the plans it keeps.
func withTasks(t *testing.T, h *harness) {
	t.Helper()
	tasks := task.Tasks{Store: h.db}
	todo, err := tasks.Todo()
	if err != nil {
		t.Fatal(err)
	}
	h.runner.Tools = append(h.runner.Tools, todo)
	h.runner.Plans = tasks
}

func todoCall(id string, items ...string) llmtest.Reply {
	var list []task.Item
	for _, it := range items {
		text, status, _ := strings.Cut(it, ":")
		list = append(list, task.Item{Text: text, Status: task.Status(status)})
	}
	args, _ := json.Marshal(task.TodoArgs{Items: list})
	return llmtest.ToolCall(id, "todo", string(args))
}

// A task's plan reaches the model at every step, after the conversation
// (the system prompt stays the same), as it stands then.
func TestPlanInEveryStep(t *testing.T) {
	h := newHarness(t)
	withTasks(t, h)
	h.runner.MaxChecks = -1 // no check step here
	h.srv.Enqueue(
		todoCall("p1", "read the logs:in_progress", "write the fix:pending"),
		todoCall("p2", "read the logs:done", "write the fix:in_progress"),
		llmtest.Text("Done."),
	)
	if _, err := h.runner.RunSync(t.Context(), turn(h.session(t, "ana"), "ana", "fix the build")); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if p := reqs[0].LastUserText(); strings.Contains(p, "Your plan") {
		t.Errorf("a plan before there is one:\n%s", p)
	}
	if p := reqs[1].LastUserText(); !strings.Contains(p, "◐ 1. read the logs (in progress)\n☐ 2. write the fix") {
		t.Errorf("step 2 lacks the plan:\n%s", p)
	}
	if p := reqs[2].LastUserText(); !strings.Contains(p, "☑ 1. read the logs\n◐ 2. write the fix (in progress)") {
		t.Errorf("step 3 lacks the updated plan:\n%s", p)
	}
	for i, r := range reqs[1:] {
		if systemPrompt(t, r) != systemPrompt(t, reqs[0]) {
			t.Errorf("step %d changed the system prompt", i+2)
		}
	}
}

// A task takes more steps than a plain turn and, its budget spent,
// pauses with its state kept instead of failing; asked to pause, it
// pauses after the step it is in.
func TestTaskPauses(t *testing.T) {
	loop := &testTool{name: "work", run: func(json.RawMessage) (string, error) { return "worked", nil }}
	for _, tt := range []struct {
		name  string
		pause func(step *int) func() bool
		want  string
		calls int
	}{
		{"budget", nil, "⏸ Paused after 4 steps: 1 of 2 done — reply *continue* or use /resume.", 4},
		{"asked", func(step *int) func() bool { return func() bool { *step++; return *step >= 3 } },
			"⏸ Paused as asked: 1 of 2 done", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, loop)
			withTasks(t, h)
			h.runner.MaxSteps, h.runner.TaskSteps = 2, 4 // a plain turn would fail at 2
			h.srv.Enqueue(todoCall("p1", "one:done", "two:in_progress"))
			for i := range tt.calls - 1 {
				h.srv.Enqueue(llmtest.ToolCall("w"+string(rune('a'+i)), "work", `{}`))
			}
			tr := turn(h.session(t, "ana"), "ana", "do it")
			var step int
			if tt.pause != nil {
				tr.Pause = tt.pause(&step)
			}
			evs, err := collect(t.Context(), h.runner, tr)
			if err != nil {
				t.Fatal(err)
			}
			last := evs[len(evs)-1]
			if last.Kind != agent.EventDone || !last.Paused || !strings.HasPrefix(last.Text, tt.want) {
				t.Fatalf("last event %+v, want a pause %q", last, tt.want)
			}
			if n := len(h.srv.Requests()); n != tt.calls {
				t.Errorf("%d model calls, want %d", n, tt.calls)
			}
			msgs, _ := h.db.Messages(t.Context(), tr.SessionID)
			if end := msgs[len(msgs)-1]; end.Text != last.Text {
				t.Errorf("the transcript does not end with the pause: %+v", end)
			}
			// Continue: the next turn goes on from the plan.
			h.srv.Enqueue(todoCall("p9", "one:done", "two:done"), llmtest.Text("Both done."), llmtest.Text("Checked: both done."))
			res, err := h.runner.RunSync(t.Context(), turn(tr.SessionID, "ana", "continue"))
			if err != nil || res.Text != "Checked: both done." {
				t.Fatalf("continue: %q %v", res.Text, err)
			}
		})
	}
}

// Before a task's final answer the model checks what it marked done; a
// failed check reopens an item and the task goes on; its answer after a
// check is final, and checks are bounded.
func TestCheckStep(t *testing.T) {
	h := newHarness(t)
	withTasks(t, h)
	h.srv.Enqueue(
		todoCall("p1", "deploy:done", "notify:done"),
		llmtest.Text("All done."),                       // → the check
		todoCall("p2", "deploy:done", "notify:pending"), // the check fails: reopened
		todoCall("p3", "deploy:done", "notify:done"),
		llmtest.Text("Notified; all done."), // → the second check
		llmtest.Text("Verified: deployed and notified."),
	)
	evs, err := collect(t.Context(), h.runner, turn(h.session(t, "ana"), "ana", "deploy and notify"))
	if err != nil {
		t.Fatal(err)
	}
	if n := countKind(evs, agent.EventCheck); n != 2 {
		t.Errorf("%d check steps, want 2", n)
	}
	if last := evs[len(evs)-1]; last.Kind != agent.EventDone || last.Text != "Verified: deployed and notified." {
		t.Errorf("final: %+v", last)
	}
	if p := h.srv.Requests()[2].LastUserText(); !strings.HasPrefix(p, agent.CheckPrompt+"\n\n## Your plan") {
		t.Errorf("the model was not asked to check: %q", p)
	}
	log, _ := h.db.Log(t.Context(), h.session(t, "ana"), 20)
	var lines []string
	for _, e := range log {
		lines = append(lines, e.Text)
	}
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "item 2 done → pending: notify") {
		t.Errorf("the reopened item is not in the work log:\n%s", got)
	}
}

// A task knows its step budget: each step's prompt says how many model
// calls are left, and each tool's event carries it for the checklist.
func TestTaskKnowsItsStepBudget(t *testing.T) {
	for _, withWait := range []bool{false, true} {
		t.Run(fmt.Sprint("wait tool: ", withWait), func(t *testing.T) { stepBudget(t, withWait) })
	}
}

// stepBudget runs a three-step task, with the wait tool or without: the
// budget's line points to it only when the turn has it.
func stepBudget(t *testing.T, withWait bool) {
	var extra []agent.Tool
	if withWait {
		wait, err := task.Wait(nil)
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, wait)
	}
	h := newHarness(t, extra...)
	withTasks(t, h)
	h.runner.MaxChecks = -1
	h.runner.TaskSteps = 10
	h.srv.Enqueue(
		todoCall("p1", "read the logs:in_progress"),
		todoCall("p2", "read the logs:done"),
		llmtest.Text("Done."),
	)
	evs, err := collect(t.Context(), h.runner, turn(h.session(t, "ana"), "ana", "read the logs"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	for i, want := range []string{"", "Steps left in this turn: 9 of 10", "Steps left in this turn: 8 of 10"} {
		p := reqs[i].LastUserText()
		if want == "" && strings.Contains(p, "Steps left") || !strings.Contains(p, want) {
			t.Errorf("step %d: want %q in\n%s", i+1, want, p)
		}
		if want != "" && strings.Contains(p, "use the wait tool") != withWait {
			t.Errorf("step %d: the wait tool mentioned %v, want %v", i+1, !withWait, withWait)
		}
	}
	var budgets []agent.StepBudget
	for _, ev := range evs {
		if ev.Kind == agent.EventToolEnd && ev.Budget != nil {
			budgets = append(budgets, *ev.Budget)
		}
	}
	// The first todo call made the plan: before it the turn was no task.
	if len(budgets) != 1 || budgets[0] != (agent.StepBudget{Step: 2, Limit: 10}) || budgets[0].Left() != 8 {
		t.Fatalf("budgets on tool events: %+v", budgets)
	}
}

// A task that needs its author's answer waits for it with the wait tool:
// the step ends when they write, and what they wrote follows the tool's
// result in the next step, paired calls and all.
func TestWaitEndsWhenTheAuthorWrites(t *testing.T) {
	wait, err := task.Wait(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, wait)
	// A runner's clock that never times out: only the reply can end the wait.
	h.runner.Sleep = func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }
	h.srv.Enqueue(llmtest.ToolCall("w1", "wait", `{"for":"reply","timeout_seconds":600}`), llmtest.Text("Using port 8080."))
	wake := make(chan struct{}, 1)
	var mu sync.Mutex
	var queued []agent.Steered
	tr := turn(h.session(t, "ana"), "ana", "deploy it; ask me which port")
	tr.Wake = wake
	tr.Steer = func() []agent.Steered {
		mu.Lock()
		defer mu.Unlock()
		out := queued
		queued = nil
		return out
	}
	var answer string
	for ev, err := range h.runner.Run(t.Context(), tr) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Kind == agent.EventToolStart && ev.Tool.Name == "wait":
			mu.Lock()
			queued = append(queued, agent.Steered{Text: "8080", Author: "ana", Key: "k2"})
			mu.Unlock()
			wake <- struct{}{}
		case ev.Kind == agent.EventToolEnd && !strings.HasPrefix(ev.Result, task.WaitReplied):
			t.Fatalf("wait ended with %q", ev.Result)
		case ev.Kind == agent.EventDone:
			answer = ev.Text
		}
	}
	reqs := h.srv.Requests()
	if answer != "Using port 8080." || len(reqs) != 2 || !strings.HasSuffix(reqs[1].LastUserText(), "\n\n8080") {
		t.Fatalf("answer %q, %d requests, last user text %q", answer, len(reqs), reqs[len(reqs)-1].LastUserText())
	}
}
