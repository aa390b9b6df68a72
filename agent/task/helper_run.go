package task

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
)

// errHelperTimeout is the cause of a helper's context when its time ran
// out, telling a timeout from its parent's stop.
var errHelperTimeout = errors.New("helper timed out")

// runAll runs the jobs that need to, at once, and waits for them all:
// meanwhile the task waits for its helpers, and a helper that delegated
// gives its own slot up.
func (dl *delegator) runAll(ctx context.Context, c agent.Caller, depth int, jobs []*job) error {
	if !slices.ContainsFunc(jobs, func(j *job) bool { return j.run }) {
		return nil
	}
	dl.setState(ctx, c.SessionID, WaitingHelpers)
	// The turn goes on (or ends, and the chat core says how).
	defer dl.setState(context.WithoutCancel(ctx), c.SessionID, Running)
	reacquire := yieldSlot(ctx)
	var wg sync.WaitGroup
	for _, j := range jobs {
		if j.run {
			wg.Go(func() { dl.work(ctx, c, depth+1, j) })
		}
	}
	wg.Wait()
	if err := reacquire(); err != nil {
		return err
	}
	return ctx.Err()
}

// setState records the task's state; a failure costs people the state
// shown, not the task its helpers.
func (dl *delegator) setState(ctx context.Context, sessionID string, s State) {
	if err := dl.Tasks.Store.SetState(ctx, sessionID, s); err != nil {
		dl.logger().Warn("task state", "session", sessionID, "err", err)
	}
}

// work runs one helper to its end and stores its result the moment it
// exists. ctx is the delegate call's: when it ends (a stop, a shutdown)
// the helper ends with it, and its sub-session keeps what it did.
func (dl *delegator) work(ctx context.Context, c agent.Caller, depth int, j *job) {
	h := &j.h
	if err := dl.slots.Acquire(ctx); err != nil {
		dl.finish(ctx, h, HelperStopped, "stopped before it started: the task was stopped")
		return
	}
	held := &heldSlot{slots: dl.slots, held: true}
	defer held.release()
	ctx = context.WithValue(ctx, slotKey{}, held)

	h.Status = HelperRunning
	if err := dl.Helpers.SaveHelper(ctx, *h); err != nil {
		dl.logger().Warn("save helper", "helper", h.ID, "err", err)
	}
	dl.log(ctx, h.Parent, fmt.Sprintf("item %d helper started: %s", h.Item, oneLine(h.Instruction)))

	hctx, cancel := context.WithTimeoutCause(ctx, dl.lim.Timeout, errHelperTimeout)
	defer cancel()
	answer, paused, err := dl.turn(hctx, c, depth, h)
	switch {
	case ctx.Err() != nil:
		dl.finish(ctx, h, HelperStopped, "stopped: the task was stopped")
	case errors.Is(context.Cause(hctx), errHelperTimeout):
		dl.finish(ctx, h, HelperTimeout, fmt.Sprintf("timed out after %s", dl.lim.Timeout))
	case err != nil:
		dl.finish(ctx, h, HelperFailed, err.Error())
	case paused:
		// Not its answer: the pause's note, which says so to people.
		dl.finish(ctx, h, HelperPaused, "paused with the task")
	default:
		dl.finish(ctx, h, HelperDone, answer)
	}
}

// finish stores a helper's end, whatever became of its context, and logs
// it in the parent's work log.
func (dl *delegator) finish(ctx context.Context, h *Helper, s HelperStatus, result string) {
	ctx = context.WithoutCancel(ctx)
	h.Status, h.Result = s, result
	if err := dl.Helpers.SaveHelper(ctx, *h); err != nil {
		dl.logger().Error("save helper result", "helper", h.ID, "err", err)
	}
	dl.log(ctx, h.Parent, fmt.Sprintf("item %d helper %s: %s", h.Item, s, oneLine(result)))
}

// turn runs the helper's turn on its sub-session: the first, or the one a
// crash or a stop cut off, from where it stands. Its answer is its result;
// paused says it paused (its parent's /pause, or a plan of its own out of
// steps) rather than finished.
func (dl *delegator) turn(ctx context.Context, c agent.Caller, depth int, h *Helper) (answer string, paused bool, err error) {
	progress, err := c.Runner.Progress(ctx, h.Session, h.Key)
	if err != nil {
		return "", false, err
	}
	if progress.Phase == agent.PhaseAnswered {
		return progress.Answer, false, nil // it answered just before a crash
	}
	tools, err := dl.helperTools(c.Runner, depth, *h)
	if err != nil {
		return "", false, err
	}
	// The helper works in its task's workspace (a nested helper in the
	// first task's): its files are the task's to read.
	c.Workspace = c.WorkspaceID()
	c.SessionID, c.CallID = h.Session, ""
	t := agent.Turn{
		SessionID: h.Session,
		Caller:    c,
		Place:     agent.Place{Platform: c.Origin.Platform},
		Sub:       &agent.Sub{Tools: tools, Steps: dl.lim.Steps, Plans: helperPlans{store: dl.Tasks.Store, parent: h.Parent, item: h.Item}},
	}
	if c.Origin.Direct {
		t.Place.ChatKind = "direct"
	}
	if dl.Pause != nil {
		t.Pause = func() bool { return dl.Pause(h.Parent) }
	}
	if progress.Phase == agent.PhaseOpen {
		t.Resume = true
	} else {
		t.Text, t.Key = helperPrompt(*h), h.Key
	}
	for ev, err := range c.Runner.Run(ctx, t) {
		if err != nil {
			return "", false, err
		}
		switch ev.Kind {
		case agent.EventToolEnd:
			outcome := "→ " + oneLine(ev.Result)
			if ev.IsError {
				outcome = "failed: " + oneLine(ev.Result)
			}
			dl.log(ctx, h.Parent, fmt.Sprintf("item %d helper ran %s %s", h.Item, ev.Tool.Name, outcome))
		case agent.EventApprovalNeeded:
			dl.log(ctx, h.Parent, fmt.Sprintf("item %d helper asks for approval: %s", h.Item, oneLine(ev.Approval.Summary)))
		case agent.EventDone:
			return ev.Text, ev.Paused, nil
		}
	}
	return "", false, llm.ErrIncomplete
}

// helperPrompt is the user message that starts a helper's turn.
func helperPrompt(h Helper) string {
	return fmt.Sprintf("You are a helper working on item %d of a larger task: %q.\n\nYour instruction:\n%s\n\n"+
		"Work on this item only. Report where it stands with todo_item as you go (done, or failed with the reason). "+
		"When you finish, answer with your result — what you did and found, with the facts the task needs: your answer goes back to the task, nothing else does.",
		h.Item, h.ItemText, h.Instruction)
}

// log appends a line to the parent's work log; a failure costs the line,
// not the helper.
func (dl *delegator) log(ctx context.Context, parent, line string) {
	e := Entry{At: dl.Tasks.now(), Kind: "helper", Text: line}
	if err := dl.Tasks.Store.AppendLog(context.WithoutCancel(ctx), parent, e); err != nil {
		dl.logger().Warn("work log", "session", parent, "err", err)
	}
}

// resultChars caps one helper's result in the delegate call's result, so
// one long answer does not crowd out the others (the whole stays in its
// record and sub-session).
const resultChars = 4000

// fold is the delegate call's result: each helper's outcome, in the order
// asked for.
func fold(jobs []*job, lim Limits) string {
	counts := map[HelperStatus]int{}
	for _, j := range jobs {
		counts[j.h.Status]++
	}
	var parts []string
	for _, s := range []HelperStatus{HelperDone, HelperFailed, HelperTimeout, HelperStopped, HelperPaused} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d helpers reported: %s.", len(jobs), strings.Join(parts, ", "))
	for _, j := range jobs {
		h := j.h
		fmt.Fprintf(&b, "\n\n## Item %d: %s", h.Item, h.Status)
		if j.kept {
			b.WriteString(" (kept from before an interruption)")
		}
		b.WriteString("\n" + clip(h.Result, resultChars))
		switch h.Status {
		case HelperTimeout:
			fmt.Fprintf(&b, "\nIts work so far is kept: delegate item %d again to let it go on for another %s.", h.Item, lim.Timeout)
		case HelperStopped, HelperPaused:
			fmt.Fprintf(&b, "\nIts work so far is kept: delegate item %d again to continue it.", h.Item)
		}
	}
	return b.String()
}

// clip keeps the head of s within n characters and says how much was cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s\n[… %d characters cut]", string(r[:n]), len(r)-n)
}

// oneLine is s as one short line of the work log.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= 120 {
		return s
	}
	return string([]rune(s)[:119]) + "…"
}

// slotKey carries a running helper's slot in its context, so that a
// helper that delegates (helper_depth > 1) gives its slot up while it
// waits: helpers waiting on helpers never hold every slot.
type slotKey struct{}

// heldSlot is a helper's slot; only the helper's own goroutine uses it.
type heldSlot struct {
	slots Slots
	held  bool
}

func (s *heldSlot) release() {
	if s.held {
		s.held = false
		s.slots.Release()
	}
}

// yieldSlot gives up the slot of the helper ctx runs in, if any, and
// returns what takes it back.
func yieldSlot(ctx context.Context) (reacquire func() error) {
	s, _ := ctx.Value(slotKey{}).(*heldSlot)
	if s == nil || !s.held {
		return func() error { return nil }
	}
	s.release()
	return func() error {
		if err := s.slots.Acquire(ctx); err != nil {
			return err
		}
		s.held = true
		return nil
	}
}
