package task

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
)

// Tool names the delegate tool knows: helpers get neither todo nor
// delegate unless they may nest.
const (
	todoName     = "todo"
	delegateName = "delegate"
)

// Defaults of the limits (docs/tasks.md, "Limits and configuration", names their config keys).
const (
	DefaultMaxHelpers    = 3
	DefaultHelperDepth   = 1
	DefaultHelperSteps   = 20
	DefaultHelperTimeout = 10 * time.Minute
	// DefaultConcurrent bounds the helpers running at once, across tasks,
	// when Delegation.Slots is not set.
	DefaultConcurrent = 4
	// MaxInstruction caps one helper's instruction, in characters.
	MaxInstruction = 4000
)

// Limits bound what a delegate call may start. Zero values take the
// defaults.
type Limits struct {
	// MaxHelpers is how many helpers one call may start
	// (tasks.max_helpers).
	MaxHelpers int
	// Depth is how deep helpers nest (tasks.helper_depth): 1, helpers do
	// not delegate; 2, a helper may have helpers of its own, and so on.
	Depth int
	// Steps are a helper's model calls (tasks.helper_steps).
	Steps int
	// Timeout is how long a helper may run once it has a slot
	// (tasks.helper_timeout_minutes).
	Timeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxHelpers <= 0 {
		l.MaxHelpers = DefaultMaxHelpers
	}
	if l.Depth <= 0 {
		l.Depth = DefaultHelperDepth
	}
	if l.Steps <= 0 {
		l.Steps = DefaultHelperSteps
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultHelperTimeout
	}
	return l
}

// Delegation is what the delegate tool works with.
type Delegation struct {
	Tasks   Tasks
	Helpers HelperStore
	// Logger receives what went wrong beside the helpers' work; nil:
	// slog.Default. Helpers run on the runner the delegate call runs in
	// (agent.Caller.Runner), with its tools minus todo and delegate, plus
	// todo_item.
	Logger *slog.Logger
	// Slots bound the helpers running at once across all tasks; nil:
	// DefaultConcurrent. They must not be the chat core's turn slots: a
	// parent holds one of those while it waits for its helpers.
	Slots  Slots
	Limits Limits
	// Pause, when set, is asked before each step of a helper after its
	// first: true pauses the helper there (its parent's /pause).
	Pause func(parentSessionID string) bool
}

// DelegateArgs is the delegate tool's argument contract.
type DelegateArgs struct {
	Helpers []HelperArgs `json:"helpers" jsonschema:"one helper per independent item of your plan"`
}

// HelperArgs is one helper asked for.
type HelperArgs struct {
	Item        int    `json:"item" jsonschema:"the number of your plan's item the helper works on (1 is the first)"`
	Instruction string `json:"instruction" jsonschema:"what the helper is to do and to report back, self-contained: it does not see this conversation"`
}

// delegator is a Delegation resolved for use: its limits and slots.
type delegator struct {
	Delegation
	lim   Limits
	slots Slots
}

// Tool returns the delegate tool: the model hands independent items of
// its plan to helpers that run at once, each in a sub-session of its own,
// and gets their results back in one tool result.
func (d Delegation) Tool() (agent.Tool, error) {
	if d.Helpers == nil || d.Tasks.Store == nil {
		return nil, errors.New("delegate: Helpers and Tasks.Store are required")
	}
	dl := &delegator{Delegation: d, lim: d.Limits.withDefaults(), slots: d.Slots}
	if dl.slots == nil {
		dl.slots = NewSlots(DefaultConcurrent)
	}
	return dl.tool(0)
}

// tool is the delegate tool of a session at depth: 0 for a task's own
// session, n for a helper n levels down.
func (dl *delegator) tool(depth int) (agent.Tool, error) {
	return agent.Local(agent.Func(delegateName,
		fmt.Sprintf("Hand independent items of your to-do list to helpers that work on them at the same time (at most %d per call), then get all their results back. "+
			"Each helper starts fresh: it sees your plan and its instruction only, has your other tools, and may update only its own item. "+
			"Use it for items that do not depend on each other's results; if a call was interrupted, call it again for the same items: finished helpers report what they found, the others continue.",
			dl.lim.MaxHelpers),
		func(ctx context.Context, c agent.Caller, a DelegateArgs) (string, error) {
			return dl.delegate(ctx, c, depth, a)
		}))
}

// delegate runs one call: it checks it, finds or creates each item's
// helper, runs those without a result at once and folds every result
// into its own.
func (dl *delegator) delegate(ctx context.Context, c agent.Caller, depth int, a DelegateArgs) (string, error) {
	if c.SessionID == "" {
		return "", errors.New("helpers need a conversation")
	}
	k, ok, err := dl.Tasks.Store.Task(ctx, c.SessionID)
	if err != nil {
		return "", err
	}
	if !ok || len(k.Plan.Items) == 0 {
		return "", errors.New("delegate hands out items of your plan: write it with todo first")
	}
	if err := dl.check(k.Plan, a); err != nil {
		return "", err
	}
	if c.Runner == nil {
		return "", errors.New("delegate: the call runs in no runner")
	}
	jobs, err := dl.prepare(ctx, c, k.Plan, a)
	if err != nil {
		return "", err
	}
	if err := dl.runAll(ctx, c, depth, jobs); err != nil {
		return "", err
	}
	return fold(jobs, dl.lim), nil
}

// check refuses a call over the limits or naming items the plan lacks.
func (dl *delegator) check(p Plan, a DelegateArgs) error {
	switch n := len(a.Helpers); {
	case n == 0:
		return errors.New("no helpers asked for: give each an item and an instruction")
	case n > dl.lim.MaxHelpers:
		return fmt.Errorf("%d helpers asked for, at most %d per call (tasks.max_helpers): delegate the others once these report", n, dl.lim.MaxHelpers)
	}
	seen := map[int]bool{}
	for _, h := range a.Helpers {
		switch {
		case h.Item < 1 || h.Item > len(p.Items):
			return fmt.Errorf("item %d is not in your plan (items 1 to %d)", h.Item, len(p.Items))
		case seen[h.Item]:
			return fmt.Errorf("item %d is asked for twice: one helper an item", h.Item)
		case strings.TrimSpace(h.Instruction) == "":
			return fmt.Errorf("item %d has no instruction", h.Item)
		case utf8.RuneCountInString(h.Instruction) > MaxInstruction:
			return fmt.Errorf("item %d's instruction is longer than %d characters", h.Item, MaxInstruction)
		}
		seen[h.Item] = true
	}
	return nil
}

// job is one helper of a call: run, or reported from what is kept.
type job struct {
	h   Helper
	run bool
	// kept: the result was stored before this call (a restart, a stop).
	kept bool
}

// prepare finds or creates the helper of each item asked for
// (docs/tasks.md, "Durable results, and delegating again"): a helper whose result the
// model never read reports it; one cut off (a crash, a stop) resumes its
// sub-session, or continues it with the new instruction when that was
// reworded; one paused, or timed out and reported, continues it with the
// new instruction; otherwise (none yet, a plan rewritten, a redo) a
// new helper starts. Every helper that runs is marked this call's before any
// starts, so a crash from here on leaves them to the next call.
func (dl *delegator) prepare(ctx context.Context, c agent.Caller, p Plan, a DelegateArgs) ([]*job, error) {
	kept, err := dl.Helpers.Helpers(ctx, c.SessionID)
	if err != nil {
		return nil, err
	}
	latest := map[int]Helper{}
	for _, h := range kept {
		latest[h.Item] = h // oldest first: the last one wins
	}
	read, err := dl.readBy(ctx, c)
	if err != nil {
		return nil, err
	}
	jobs := make([]*job, 0, len(a.Helpers))
	for _, arg := range a.Helpers {
		text := p.Items[arg.Item-1].Text
		h, ok := latest[arg.Item]
		same := ok && h.ItemText == text
		switch {
		case same && (h.Status == HelperPaused || h.Status == HelperTimeout && read(h)):
			// A new message continues its sub-session: a paused one's
			// ends in the pause's note, an answer of sorts; a timed-out
			// one's end the model has read.
			h.Instruction, h.Status, h.Key = arg.Instruction, HelperPending, turnKey(c)
		case same && !h.Status.finished() && h.Instruction != arg.Instruction:
			// Cut off, and asked again in other words (after a /stop,
			// say, because it went the wrong way): the new instruction
			// continues its sub-session as a new message, the calls it
			// left without results settled as interrupted.
			h.Instruction, h.Status, h.Key = arg.Instruction, HelperPending, turnKey(c)
		case same && !h.Status.finished():
			h.Status = HelperPending // resumed where it was
		case same && !read(h):
			jobs = append(jobs, &job{h: h, kept: true})
			continue
		default:
			h = Helper{Parent: c.SessionID, Item: arg.Item, ItemText: text, Instruction: arg.Instruction,
				Status: HelperPending, Key: turnKey(c)}
		}
		h.Call, h.Result = c.CallID, ""
		if h.ID == 0 {
			h, err = dl.Helpers.AddHelper(ctx, h)
		} else {
			err = dl.Helpers.SaveHelper(ctx, h)
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, &job{h: h, run: true})
	}
	return jobs, nil
}

// turnKey marks the user message of a helper's turn started by this call.
func turnKey(c agent.Caller) string { return "helper:" + c.CallID }

// readBy returns whether the model has read a finished helper's result:
// whether the delegate call that last reported it got its result. A call
// cut off (a crash, a stop) has none, or the interrupted one; a call
// compaction removed was read before it was.
func (dl *delegator) readBy(ctx context.Context, c agent.Caller) (func(Helper) bool, error) {
	msgs, err := c.Runner.Sessions.Messages(ctx, c.SessionID)
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	called := map[string]bool{}
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, call := range m.ToolCalls {
			called[call.ID] = true
		}
		if m.ToolCallID != "" && (!m.IsError || m.Text != agent.InterruptedResult) {
			answered[m.ToolCallID] = true
		}
	}
	return func(h Helper) bool {
		if h.Call == c.CallID {
			return false // this very call, run again (an approval policy)
		}
		return answered[h.Call] || !called[h.Call]
	}, nil
}

func (dl *delegator) logger() *slog.Logger {
	if dl.Logger != nil {
		return dl.Logger
	}
	return slog.Default()
}
