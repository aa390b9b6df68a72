package task_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
)

// The process dies while helper 2 runs and after helper 1 finished. A new
// runner over the same file resumes the parent's turn as crash recovery
// does: the delegate call is marked interrupted, the model delegates the
// same items again, helper 1 reports its kept result without a model call,
// and helper 2 continues its sub-session where it was.
func TestHelpersSurviveARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m1 := newModel()
		first := newRig(t, "", m1, nil)
		first.plan(t, "a", "b")
		m1.on(taskText, delegateCall("d1", 1, 2))
		m1.on(helperKey(1), say(time.Second, "one"))
		m1.on(helperKey(2), call(2*time.Second, "w1", "work", nil), step{block: true})
		crashAfter(t, first, 5*time.Second)

		m2 := newModel()
		second := newRig(t, first.path, m2, nil)
		hs := second.helpers(t)
		if hs[1].Status != task.HelperDone || hs[1].Result != "one" || hs[2].Status != task.HelperRunning {
			t.Fatalf("kept at the crash: %+v", hs)
		}
		m2.on(taskText, delegateCall("d2", 1, 2), say(0, "both done"))
		m2.on(helperKey(2), say(0, "two"))
		resume := second.turn()
		resume.Resume, resume.Text = true, ""
		res, err := second.runner.RunSync(t.Context(), resume)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "both done" {
			t.Errorf("answer %q", res.Text)
		}
		if n := m2.count(helperKey(1)); n != 0 {
			t.Errorf("helper 1 called the model %d times after the restart, want 0", n)
		}
		reqs := m2.requests(taskText)
		if got := toolResult(reqs[0], "d1"); got != agent.InterruptedResult {
			t.Errorf("the cut-off call's result: %q, want interrupted", got)
		}
		got := toolResult(reqs[1], "d2")
		for _, want := range []string{"2 helpers reported: 2 done.", "## Item 1: done (kept from before an interruption)\none", "## Item 2: done\ntwo"} {
			if !strings.Contains(got, want) {
				t.Errorf("the re-issued call lacks %q:\n%s", want, got)
			}
		}
		h2 := m2.requests(helperKey(2))
		if len(h2) != 1 || users(h2[0]) != 1 || toolResult(h2[0], "w1") != "worked (1)" {
			t.Errorf("helper 2 did not continue where it was: %+v", h2)
		}
		if second.work.calls != 0 {
			t.Errorf("helper 2 ran its tool again: %d calls", second.work.calls)
		}
		hs = second.helpers(t)
		if hs[2].Status != task.HelperDone || hs[2].Result != "two" || hs[2].Call != "d2" || hs[1].Call != "d1" {
			t.Errorf("after: %+v", hs)
		}
		if all, _ := second.db.Helpers(t.Context(), second.parent); len(all) != 2 {
			t.Errorf("%d helpers, want the same 2", len(all))
		}
	})
}

// Once the model has read a result, delegating the item again is a redo:
// a done item gets a new helper; a timed-out one goes on in its own
// sub-session, with the new instruction.
func TestDelegateAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		r := newRig(t, "", m, func(d *task.Delegation) { d.Limits.Timeout = time.Minute })
		r.plan(t, "a", "b")
		m.on(taskText, delegateCall("d1", 1, 2), say(0, "item 2 timed out"), delegateCall("d2", 1, 2), say(0, "all done"))
		m.on(helperKey(1), say(0, "one"), say(0, "one, again"))
		m.on(helperKey(2), call(0, "w1", "work", nil), step{block: true}, say(0, "two at last"))
		if _, err := r.runner.RunSync(t.Context(), r.turn()); err != nil {
			t.Fatal(err)
		}
		before := r.helpers(t)
		again := r.turn()
		again.Text, again.Key = "again please", "slack:T1:C1:1.2"
		if _, err := r.runner.RunSync(t.Context(), again); err != nil {
			t.Fatal(err)
		}
		after := r.helpers(t)
		if after[1].Session == before[1].Session || after[1].Result != "one, again" {
			t.Errorf("item 1 again: %+v, want a new helper (was %+v)", after[1], before[1])
		}
		if after[2].ID != before[2].ID || after[2].Status != task.HelperDone || after[2].Result != "two at last" {
			t.Errorf("item 2 again: %+v, want the same helper continued", after[2])
		}
		reqs := m.requests(helperKey(2))
		last := reqs[len(reqs)-1]
		if users(last) != 2 || toolResult(last, "w1") != "worked (1)" {
			t.Errorf("the timed-out helper did not go on from its transcript: %+v", last.Messages)
		}
	})
}

// crashAfter runs r's turn and kills the process after d: nothing is
// written from then on.
func crashAfter(t *testing.T, r *rig, d time.Duration) {
	t.Helper()
	ctx, kill := context.WithCancel(t.Context())
	go func() {
		time.Sleep(d)
		r.db.Close()
		kill()
	}()
	if _, err := r.runner.RunSync(ctx, r.turn()); err == nil {
		t.Fatal("the first run survived its crash")
	}
}

// users counts a request's user messages.
func users(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			n++
		}
	}
	return n
}

// Pausing the parent pauses its helpers after their current step; the
// next delegation of the item continues the same sub-session.
func TestPauseCascadesToHelpers(t *testing.T) {
	m := newModel()
	var paused atomic.Bool
	r := newRig(t, "", m, func(d *task.Delegation) {
		d.Pause = func(parent string) bool { return paused.Load() }
	})
	r.plan(t, "a")
	m.on(taskText, delegateCall("d1", 1), say(0, "paused"), delegateCall("d2", 1), say(0, "done"))
	m.on(helperKey(1), call(0, "w1", "work", nil), say(0, "one"))
	paused.Store(true)
	if _, err := r.runner.RunSync(t.Context(), r.turn()); err != nil {
		t.Fatal(err)
	}
	h := r.helpers(t)[1]
	got := toolResult(m.requests(taskText)[1], "d1")
	if h.Status != task.HelperPaused || !strings.Contains(got, "## Item 1: paused\npaused with the task\nIts work so far is kept: delegate item 1 again") {
		t.Fatalf("paused helper %+v, reported as:\n%s", h, got)
	}
	paused.Store(false)
	again := r.turn()
	again.Text, again.Key = "continue", "slack:T1:C1:1.2"
	if _, err := r.runner.RunSync(t.Context(), again); err != nil {
		t.Fatal(err)
	}
	after := r.helpers(t)[1]
	if after.ID != h.ID || after.Status != task.HelperDone || after.Result != "one" {
		t.Errorf("after the pause: %+v, want the same helper done", after)
	}
	msgs, err := r.db.Messages(t.Context(), h.Session)
	if err != nil || len(msgs) != 6 || msgs[2].Text != "worked (1)" || !strings.HasPrefix(msgs[3].Text, "⏸ Paused") || msgs[4].Role != llm.RoleUser {
		t.Errorf("the helper's transcript: %+v %v", msgs, err)
	}
}

// A helper cut off and then asked again in other words continues its
// sub-session with the new instruction as a new message, rather than
// resume as if nothing had been said.
func TestRewordedHelperGetsTheNewInstruction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m1 := newModel()
		first := newRig(t, "", m1, nil)
		first.plan(t, "a", "b")
		m1.on(taskText, delegateCall("d1", 2))
		m1.on(helperKey(2), call(2*time.Second, "w1", "work", nil), step{block: true})
		crashAfter(t, first, 5*time.Second)

		m2 := newModel()
		second := newRig(t, first.path, m2, nil)
		reworded := "do item 2, but only the billing queue"
		m2.on(taskText, call(0, "d2", "delegate", task.DelegateArgs{Helpers: []task.HelperArgs{{Item: 2, Instruction: reworded}}}), say(0, "done"))
		m2.on(helperKey(2), say(0, "billing: 3 waiting"))
		resume := second.turn()
		resume.Resume, resume.Text = true, ""
		if _, err := second.runner.RunSync(t.Context(), resume); err != nil {
			t.Fatal(err)
		}
		h2 := m2.requests(helperKey(2))
		if len(h2) != 1 || users(h2[0]) != 2 {
			t.Fatalf("helper 2's requests: %d, want one with both instructions", len(h2))
		}
		msgs := h2[0].Messages
		if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser || !strings.Contains(last.Text, reworded) {
			t.Errorf("the reworded instruction is not the helper's last message: %+v", last)
		}
		if got := toolResult(h2[0], "w1"); got == "" {
			t.Error("the work done before the interruption is gone from the helper's transcript")
		}
		hs := second.helpers(t)
		if hs[2].Instruction != reworded || hs[2].Result != "billing: 3 waiting" {
			t.Errorf("after: %+v", hs[2])
		}
	})
}
