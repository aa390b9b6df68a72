package task_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
)

// Three helpers run at once: the parent waits as long as the slowest, not
// the sum, in the state waiting_helpers, and its next step reads every
// result.
func TestHelpersRunInParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		r := newRig(t, "", m, nil)
		r.plan(t, "check the API", "check the database", "check the queue")
		m.on(taskText, delegateCall("d1", 1, 2, 3), say(0, "All three checked."))
		m.on(helperKey(1), say(1*time.Second, "API: healthy"))
		m.on(helperKey(2),
			call(500*time.Millisecond, "t1", "todo_item", task.ItemArgs{Status: task.Done, Note: "replica lag 0"}),
			say(1500*time.Millisecond, "database: healthy, replica lag 0"))
		m.on(helperKey(3), say(3*time.Second, "queue: 12 messages waiting"))
		var mu sync.Mutex
		states := map[string]task.State{}
		m.seen = func(key string) {
			k, _, _ := r.db.Task(context.Background(), r.parent)
			mu.Lock()
			defer mu.Unlock()
			states[key] = k.State
		}

		start := time.Now()
		res, err := r.runner.RunSync(t.Context(), r.turn())
		if err != nil {
			t.Fatal(err)
		}
		if elapsed := time.Since(start); elapsed != 3*time.Second {
			t.Errorf("took %s, want 3s: the slowest helper's time, not the 6s of all three", elapsed)
		}
		if res.Text != "All three checked." {
			t.Errorf("answer %q", res.Text)
		}
		next := m.requests(taskText)[1]
		got := toolResult(next, "d1")
		for _, want := range []string{"3 helpers reported: 3 done.", "## Item 1: done\nAPI: healthy",
			"## Item 2: done\ndatabase: healthy, replica lag 0", "## Item 3: done\nqueue: 12 messages waiting"} {
			if !strings.Contains(got, want) {
				t.Errorf("the parent's next step lacks %q:\n%s", want, got)
			}
		}
		if states[helperKey(3)] != task.WaitingHelpers {
			t.Errorf("state while helpers ran: %q, want waiting_helpers", states[helperKey(3)])
		}
		k, _, err := r.db.Task(t.Context(), r.parent)
		if err != nil || k.State != task.Running {
			t.Errorf("state after: %q (%v), want running", k.State, err)
		}
		if it := k.Plan.Items[1]; it.Status != task.Done || it.Note != "replica lag 0" {
			t.Errorf("item 2 as its helper left it: %+v", it)
		}
		hs := r.helpers(t)
		for n := 1; n <= 3; n++ {
			h := hs[n]
			if h.Status != task.HelperDone || h.Call != "d1" || h.Session == r.parent {
				t.Errorf("helper %d: %+v", n, h)
			}
			msgs, err := r.db.Messages(t.Context(), h.Session)
			if err != nil || len(msgs) < 2 || !strings.Contains(msgs[0].Text, "do item") || msgs[0].Author != "ana" {
				t.Errorf("helper %d's transcript: %+v %v", n, msgs, err)
			}
		}
		log, err := r.db.Log(t.Context(), r.parent, 100)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, e := range log {
			lines = append(lines, e.Kind+": "+e.Text)
		}
		joined := strings.Join(lines, "\n")
		for _, want := range []string{"helper: item 1 helper started: do item 1", "helper: item 2 helper ran todo_item → Item 2 is done",
			"plan: item 2 pending → done: check the database — replica lag 0 (helper)", "helper: item 3 helper done: queue: 12 messages waiting"} {
			if !strings.Contains(joined, want) {
				t.Errorf("the work log lacks %q:\n%s", want, joined)
			}
		}
	})
}

// The global bound holds: with two slots, three one-second helpers take
// two seconds.
func TestHelperSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		r := newRig(t, "", m, func(d *task.Delegation) { d.Slots = task.NewSlots(2) })
		r.plan(t, "a", "b", "c")
		m.on(taskText, delegateCall("d1", 1, 2, 3), say(0, "done"))
		for n := 1; n <= 3; n++ {
			m.on(helperKey(n), say(time.Second, "ok"))
		}
		start := time.Now()
		if _, err := r.runner.RunSync(t.Context(), r.turn()); err != nil {
			t.Fatal(err)
		}
		if elapsed := time.Since(start); elapsed != 2*time.Second {
			t.Errorf("took %s, want 2s with 2 slots", elapsed)
		}
	})
}

// A helper that fails (the model's error), one out of steps and one out of
// time: each outcome is stored and reaches the parent; the parent waits
// only until the timeout.
func TestHelperFailuresAndTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		r := newRig(t, "", m, func(d *task.Delegation) {
			d.Limits = task.Limits{Steps: 2, Timeout: time.Minute}
		})
		r.plan(t, "a", "b", "c")
		m.on(taskText, delegateCall("d1", 1, 2, 3), say(0, "Two failed, one timed out."))
		m.on(helperKey(1), step{delay: time.Second, err: errors.New("the provider fell over")})
		m.on(helperKey(2), call(0, "w1", "work", nil), call(0, "w2", "work", nil), call(0, "w3", "work", nil))
		m.on(helperKey(3), step{block: true})

		start := time.Now()
		if _, err := r.runner.RunSync(t.Context(), r.turn()); err != nil {
			t.Fatal(err)
		}
		if elapsed := time.Since(start); elapsed != time.Minute {
			t.Errorf("took %s, want the 1m timeout", elapsed)
		}
		got := toolResult(m.requests(taskText)[1], "d1")
		for _, want := range []string{"3 helpers reported: 2 failed, 1 timeout.", "## Item 1: failed\nthe provider fell over",
			"## Item 2: failed\nstopped after 2 model calls without a final answer", "## Item 3: timeout\ntimed out after 1m0s",
			"delegate item 3 again to let it go on"} {
			if !strings.Contains(got, want) {
				t.Errorf("the parent's next step lacks %q:\n%s", want, got)
			}
		}
		hs := r.helpers(t)
		for n, want := range map[int]task.HelperStatus{1: task.HelperFailed, 2: task.HelperFailed, 3: task.HelperTimeout} {
			if hs[n].Status != want {
				t.Errorf("helper %d stored as %q, want %q", n, hs[n].Status, want)
			}
		}
	})
}

// A helper changes only its own item: another is refused, todo and
// delegate are not its tools, and it reads the plan under a read-only
// heading.
func TestHelperOwnItemOnly(t *testing.T) {
	m := newModel()
	r := newRig(t, "", m, nil)
	r.plan(t, "read the logs", "fix the config")
	m.on(taskText, delegateCall("d1", 2), say(0, "ok"))
	m.on(helperKey(2),
		call(0, "t1", "todo_item", task.ItemArgs{Item: 1, Status: task.Done}),
		call(0, "t2", "todo", task.TodoArgs{Items: []task.Item{{Text: "mine now", Status: task.Done}}}),
		call(0, "t3", "todo_item", task.ItemArgs{Item: 2, Status: task.Failed, Note: "no write access"}),
		say(0, "could not fix: no write access"))
	if _, err := r.runner.RunSync(t.Context(), r.turn()); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests(helperKey(2))
	last := reqs[len(reqs)-1]
	if got := toolResult(last, "t1"); !strings.Contains(got, "you may update only your own item, 2, not item 1") {
		t.Errorf("another item: %q", got)
	}
	if got := toolResult(last, "t2"); !strings.Contains(got, `unknown tool "todo"`) {
		t.Errorf("todo: %q", got)
	}
	var names []string
	for _, s := range last.Tools {
		names = append(names, s.Name)
	}
	if slices.Contains(names, "todo") || slices.Contains(names, "delegate") || !slices.Contains(names, "todo_item") || !slices.Contains(names, "work") {
		t.Errorf("a helper's tools: %v; want the others and todo_item, not todo or delegate", names)
	}
	if !strings.Contains(last.Tail, "## The task's plan (read-only: you are a helper on item 2; report on it with todo_item)\n☐ 1. read the logs\n✗ 2. fix the config (failed) — no write access") {
		t.Errorf("the helper's prompt lacks the plan as it stands:\n%s", last.Tail)
	}
	k, _, err := r.db.Task(t.Context(), r.parent)
	if err != nil {
		t.Fatal(err)
	}
	want := []task.Item{{Text: "read the logs", Status: task.Pending}, {Text: "fix the config", Status: task.Failed, Note: "no write access"}}
	if !slices.Equal(k.Plan.Items, want) {
		t.Errorf("plan after: %+v", k.Plan.Items)
	}
}

// Stopping the parent stops its helpers at once: each is stored as
// stopped, and what it did so far stays in its sub-session.
func TestStopCascadesToHelpers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		r := newRig(t, "", m, nil)
		r.plan(t, "a", "b", "c")
		m.on(taskText, delegateCall("d1", 1, 2, 3))
		for n := 1; n <= 3; n++ {
			m.on(helperKey(n), call(time.Second, "w", "work", nil), step{block: true})
		}
		ctx, stop := context.WithCancel(t.Context())
		go func() {
			time.Sleep(10 * time.Second)
			stop()
		}()
		start := time.Now()
		if _, err := r.runner.RunSync(ctx, r.turn()); !errors.Is(err, context.Canceled) {
			t.Fatalf("run: %v, want canceled", err)
		}
		if elapsed := time.Since(start); elapsed != 10*time.Second {
			t.Errorf("the stop took effect after %s, want at once (10s)", elapsed)
		}
		for n, h := range r.helpers(t) {
			if h.Status != task.HelperStopped {
				t.Errorf("helper %d: %q, want stopped", n, h.Status)
			}
			msgs, err := r.db.Messages(t.Context(), h.Session)
			if err != nil || len(msgs) != 3 || msgs[2].Text != "worked (1)" && msgs[2].Text != "worked (2)" && msgs[2].Text != "worked (3)" {
				t.Errorf("helper %d's partial transcript: %+v %v", n, msgs, err)
			}
		}
		msgs, err := r.db.Messages(t.Context(), r.parent)
		if err != nil || msgs[len(msgs)-1].Text != agent.InterruptedResult {
			t.Errorf("the parent's delegate call: %+v %v, want interrupted", msgs[len(msgs)-1], err)
		}
	})
}

// A helper's approval is asked on behalf of the parent's author, from the
// helper's sub-session, whose conversation is the parent's thread: the chat
// core posts it there. A helper of a tainted task is tainted too.
func TestHelperApprovalForAuthor(t *testing.T) {
	m := newModel()
	r := newRig(t, "", m, nil)
	r.plan(t, "restart the service")
	m.on(taskText, delegateCall("d1", 1), say(0, "restarted"))
	m.on(helperKey(1), call(0, "x1", "risky", nil), say(0, "service restarted"))
	tainted := r.turn()
	tainted.Caller.Tainted = true // the task had read a web page
	if _, err := r.runner.RunSync(t.Context(), tainted); err != nil {
		t.Fatal(err)
	}
	h := r.helpers(t)[1]
	if len(r.approver.reqs) != 1 {
		t.Fatalf("approvals asked: %+v", r.approver.reqs)
	}
	req := r.approver.reqs[0]
	if req.SessionID != h.Session || req.Caller.UserKey != author.UserKey || req.Caller.UserName != author.UserName ||
		!slices.Equal(req.Caller.Scopes, author.Scopes) || req.Caller.Origin != author.Origin || req.Call.ID != "x1" {
		t.Errorf("approval request %+v; want the author's, from helper session %s", req, h.Session)
	}
	info, err := r.db.Session(t.Context(), req.SessionID)
	if err != nil || info.Thread != thread {
		t.Errorf("the approval's session is in %+v (%v), want the parent's thread", info.Thread, err)
	}
	risky := r.runner.Tools[3].(*riskyTool)
	if len(risky.ran) != 1 || risky.ran[0].UserKey != author.UserKey || risky.ran[0].SessionID != h.Session || !risky.ran[0].Tainted {
		t.Errorf("the tool ran for %+v", risky.ran)
	}
	// It works in its task's shell workspace, not one of its own.
	if len(risky.ran) == 1 && risky.ran[0].WorkspaceID() != r.parent {
		t.Errorf("the helper's workspace is %q, want its task's %q", risky.ran[0].WorkspaceID(), r.parent)
	}
}

// Calls over the limits, or naming items the plan lacks, are refused with
// an error the model reads; nothing starts.
func TestDelegateLimits(t *testing.T) {
	m := newModel()
	r := newRig(t, "", m, func(d *task.Delegation) { d.Limits.MaxHelpers = 2 })
	del := r.runner.Tools[1]
	c := author
	c.SessionID = r.parent
	ask := func(items ...task.HelperArgs) error {
		raw := mustJSON(t, task.DelegateArgs{Helpers: items})
		_, err := del.Execute(t.Context(), c, raw)
		return err
	}
	if err := ask(hargs(1, "x")); err == nil || !strings.Contains(err.Error(), "write it with todo first") {
		t.Errorf("without a plan: %v", err)
	}
	r.plan(t, "a", "b", "c")
	for _, tt := range []struct {
		items []task.HelperArgs
		want  string
	}{
		{[]task.HelperArgs{hargs(1, "x"), hargs(2, "y"), hargs(3, "z")}, "3 helpers asked for, at most 2 per call (tasks.max_helpers)"},
		{nil, "no helpers asked for"},
		{[]task.HelperArgs{hargs(4, "x")}, "item 4 is not in your plan (items 1 to 3)"},
		{[]task.HelperArgs{hargs(1, "x"), hargs(1, "y")}, "item 1 is asked for twice"},
		{[]task.HelperArgs{hargs(2, "  ")}, "item 2 has no instruction"},
		{[]task.HelperArgs{hargs(2, strings.Repeat("x", task.MaxInstruction+1))}, "longer than 4000 characters"},
	} {
		if err := ask(tt.items...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.items, err, tt.want)
		}
	}
	if hs := r.helpers(t); len(hs) != 0 {
		t.Errorf("refused calls started helpers: %+v", hs)
	}
}

// Nesting is off by default; with tasks.helper_depth 2 a helper gets todo
// and delegate for a plan of its own, and its own helpers do not. A helper
// waiting for its helpers gives its slot up: with one slot, nesting does
// not deadlock.
func TestHelperDepth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		r := newRig(t, "", m, func(d *task.Delegation) { d.Limits.Depth, d.Slots = 2, task.NewSlots(1) })
		r.plan(t, "survey the fleet")
		m.on(taskText, delegateCall("d1", 1), say(0, "surveyed"))
		m.on(helperKey(1),
			call(0, "p1", "todo", task.TodoArgs{Items: []task.Item{{Text: "east", Status: task.Pending}}}),
			delegateCall("d2", 1),
			say(0, "east is fine"))
		// The nested helper's first message names item 1 too: "east",
		// scripted last, routes it.
		m.on("east", say(time.Second, "east: fine"))
		if _, err := r.runner.RunSync(t.Context(), r.turn()); err != nil {
			t.Fatal(err)
		}
		names := func(key string, i int) []string {
			var out []string
			for _, s := range m.requests(key)[i].Tools {
				out = append(out, s.Name)
			}
			return out
		}
		if got := names(helperKey(1), 0); !slices.Contains(got, "delegate") || !slices.Contains(got, "todo") {
			t.Errorf("a helper at depth 1 of 2: %v, want todo and delegate", got)
		}
		if got := names("east", 0); slices.Contains(got, "delegate") || slices.Contains(got, "todo") {
			t.Errorf("a helper at depth 2 of 2: %v, want neither todo nor delegate", got)
		}
		if got := toolResult(m.requests(helperKey(1))[2], "d2"); !strings.Contains(got, "## Item 1: done\neast: fine") {
			t.Errorf("the nested result: %q", got)
		}
	})
}

func hargs(item int, instruction string) task.HelperArgs {
	return task.HelperArgs{Item: item, Instruction: instruction}
}
