// Package agent is Parley's harness: it turns a model into a run that
// assembles the prompt, streams the answer, runs tools (asking for approval
// where needed), retries what can be retried and persists every message the
// moment it exists.
package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/internal/clock"
)

// InterruptedMarker ends the text of an answer that was cut off, so both the
// model and a reader of the transcript know it is incomplete.
const InterruptedMarker = "\n\n[interrupted]"

// RunnerConfig is everything a Runner needs, given once to NewRunner.
type RunnerConfig struct {
	Provider llm.Provider
	Sessions SessionStore
	Memory   MemoryStore
	Tools    []Tool

	// Skills lists, each turn, the skills learnt in the turn's scopes for
	// the system prompt; nil: none.
	Skills SkillIndex

	Persona      string
	MemoryLimits MemoryLimits
	// NoMemory keeps the person's memory out of the prompt: an agent
	// with memory off (its tools have no memory tool either). Memory is
	// still required: a runner's other stores share it.
	NoMemory bool
	// Team keeps the places' team notes (team.go), shown to each turn of
	// the place its Caller.Team names; nil: none.
	Team TeamStore
	// MaxTokens caps each answer; 0 leaves it to the provider (the
	// Registry's providers fit it to each model).
	MaxTokens int
	MaxSteps  int // model calls per turn; default 25
	// Reasoning asks each model call to think first (llm.thinking); a
	// model that cannot never sees it.
	Reasoning llm.Reasoning
	// ShowThinking emits the model's reasoning as EventThinking; without
	// it no thinking text leaves the runner (llm.show_thinking).
	ShowThinking bool
	// Plans tell the runner a session's task plan (plan.go); nil: no
	// turn is a task.
	Plans Plans
	// TaskSteps are the model calls of a turn with a plan before it
	// pauses (default DefaultTaskSteps); MaxChecks the check steps per
	// turn (default DefaultMaxChecks).
	TaskSteps int
	MaxChecks int
	Retry     RetryPolicy
	// Policies overrides tools' approval policies by tool name.
	Policies map[string]Policy
	// MaxResultChars caps a tool result; default 16,000.
	MaxResultChars int
	// ContextWindow is the model's window in tokens; 0 disables compaction.
	ContextWindow int
	// CompactAt is the fraction of the window that triggers compaction;
	// default 0.6.
	CompactAt float64
	// Blind says the model cannot see images (llm.vision): pictures stay
	// in the transcript, but each is sent as a one-line note (images.go).
	Blind bool
	// ImageLimits bound the pictures tools return (agent/media); zero
	// fields take media's defaults.
	ImageLimits media.Limits

	Now    func() time.Time                                 // default time.Now
	Sleep  func(ctx context.Context, d time.Duration) error // default: a timer
	Logger *slog.Logger
}

// Runner runs turns. NewRunner builds it whole, its tools included; a
// Runner is safe for concurrent runs on different sessions.
type Runner struct {
	RunnerConfig
	cal Calibration // estimate ÷ provider-counted tokens, learned per runner
}

// NewRunner returns a runner over cfg. Provider, Sessions and Memory are
// required; the rest have defaults.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	if cfg.Provider == nil || cfg.Sessions == nil || cfg.Memory == nil {
		return nil, errors.New("agent: a runner needs a Provider, Sessions and Memory")
	}
	return &Runner{RunnerConfig: cfg}, nil
}

// Turn is one user message to answer, or (Resume) a session to continue.
type Turn struct {
	SessionID string
	Caller    Caller
	Place     Place
	Text      string
	// Resume continues the session without a new message: the tool calls
	// of its last assistant message that have no result yet are settled
	// first — those with a Decision run (an approval decided after a
	// restart), the rest are marked interrupted — then the model is asked
	// again.
	Resume bool
	// Decisions are approvals already decided, by tool call id; a call
	// with a decision here is not asked about again.
	Decisions map[string]Decision
	// Images are the pictures attached to the message, prepared
	// (agent/media), in order; stored on the user message with Text.
	Images []llm.Image
	// Key is the inbound event's durable key, stored on the user message.
	Key string
	// Steer, when set, is asked before each model call that follows tool
	// results for messages that arrived meanwhile in the same conversation:
	// they join the history, so a person can steer a running task.
	Steer func() []Steered
	// Wake, when set, receives when a message Steer will return has
	// arrived: a tool that waits for the author (Caller.Wake) returns then.
	// The runner drains it as it steers, so a message already taken does
	// not end a later wait.
	Wake <-chan struct{}
	// Reminded, when set, receives the text of each of the author's
	// reminders shown in this conversation while the turn runs: a tool
	// that waits for one (Caller.Reminded) returns then.
	Reminded <-chan string
	// Pause, when set, is asked before each step after the first: true
	// pauses the turn there (/pause), as a spent budget does.
	Pause func() bool
	// Sub, when set, runs the turn on a helper's sub-session (agent/task's
	// delegate) with what Sub says instead of the runner's.
	Sub *Sub
}

// Sub is what a helper's turn runs with instead of its runner's: a helper
// shares the runner (provider, stores, approvals) but not its tools, its
// budget or its plan.
type Sub struct {
	// Tools replace the runner's Tools.
	Tools []Tool
	// Steps are the turn's model calls, plan or not (0: the runner's
	// budgets). A helper without a plan of its own fails past them; one
	// with a plan pauses, as a task does.
	Steps int
	// Plans replace the runner's Plans: a helper sees its parent's plan.
	Plans Plans
}

// Steered is a message folded into a running turn.
type Steered struct {
	Text   string
	Author string
	Key    string
	Images []llm.Image // as Turn.Images
}

// Result is what a run produced, for callers that do not stream.
type Result struct {
	Text  string
	Usage llm.Usage
}

// RunSync runs a turn to completion; it consumes the same stream as Run.
func (r *Runner) RunSync(ctx context.Context, t Turn) (Result, error) {
	for ev, err := range r.Run(ctx, t) {
		if err != nil {
			return Result{}, err
		}
		if ev.Kind == EventDone {
			return Result{Text: ev.Text, Usage: ev.Usage}, nil
		}
	}
	return Result{}, llm.ErrIncomplete
}

// Run answers a turn as a stream of events. The stream ends with EventDone
// or with an error; a consumer that stops ranging cancels the run, and what
// was said so far stays in the session, marked as interrupted.
func (r *Runner) Run(ctx context.Context, t Turn) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// A turn may start tainted: a helper of a task that had read
		// untrusted content was instructed by it.
		run := &run{r: r, t: t, yield: yield, tainted: t.Caller.Tainted}
		if err := run.loop(ctx); err != nil && !run.stopped {
			yield(Event{}, err)
		}
	}
}

// run is the state of one Run.
type run struct {
	r       *Runner
	t       Turn
	tainted bool // the turn has read untrusted content (Caller.Tainted)
	yield   func(Event, error) bool
	stopped bool // the consumer stopped ranging
	usage   llm.Usage
	model   string // the model that wrote the last answer

	// What the loop works on (loop.go).
	history    []llm.Message
	byName     map[string]Tool // the turn's tools
	req        llm.Request
	skills     SkillList
	overflowed bool // compacted hard once for a context overflow
	checks     int  // check steps taken
	// budget is the task's step budget at the current step, nil when the
	// turn is no task: tool events carry it to the checklist.
	budget *StepBudget
}

// emit yields ev; false means the consumer stopped and the run must end.
func (x *run) emit(ev Event) bool {
	if x.stopped {
		return false
	}
	if !x.yield(ev, nil) {
		x.stopped = true
	}
	return !x.stopped
}

var errStopped = errors.New("agent: consumer stopped")

// checkedLast reports whether the model answered a check just now: its
// answer after a check is final.
func (x *run) checkedLast(history []llm.Message) bool {
	n := len(history)
	return n >= 2 && history[n-2].Role == llm.RoleUser && history[n-2].Text == CheckPrompt
}

// pause ends a task's turn at step, its state kept: the plan, the
// transcript, every tool result. The answer says so, and is kept in the
// transcript so the next turn knows where it stands.
func (x *run) pause(ctx context.Context, step int, v PlanView, asked bool) error {
	note := pauseNote(step, v, asked)
	msg := llm.Message{Role: llm.RoleAssistant, Text: note}
	if err := x.r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, msg); err != nil {
		return fmt.Errorf("save the pause: %w", err)
	}
	x.emit(Event{Kind: EventDone, Text: note, Usage: x.usage, Model: x.model, Paused: true})
	return nil
}

// steer appends the messages that arrived while tools ran. They come after
// the tool results, so every call stays paired with its result.
func (x *run) steer(ctx context.Context, history []llm.Message) ([]llm.Message, error) {
	if x.t.Steer == nil {
		return history, nil
	}
	// Drained before taking the messages: one that arrives in between
	// wakes a later wait early, which costs a step, never a lost message.
	select {
	case <-x.t.Wake:
	default:
	}
	var msgs []llm.Message
	for _, s := range x.t.Steer() {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: s.Text, Author: s.Author, Key: s.Key, Images: s.Images, Preamble: Preamble(x.r.now())})
	}
	if len(msgs) == 0 {
		return history, nil
	}
	if err := x.r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, msgs...); err != nil {
		return history, fmt.Errorf("save steering message: %w", err)
	}
	return append(history, msgs...), nil
}

// resumePending settles the calls a restart found without results. A call
// with a recorded decision runs (an approval given after the crash). A call
// whose tool needs approval goes through the approval again: it cannot have
// run without one, and the Approver returns the decision already recorded
// or waits on the approval still pending, without asking twice. Any other
// call may already have had its effect before the crash, so it is marked
// interrupted and the model decides whether to try again.
func (x *run) resumePending(ctx context.Context, tools map[string]Tool, history []llm.Message, pending []llm.ToolCall) ([]llm.Message, error) {
	var run []llm.ToolCall
	for _, c := range pending {
		_, decided := x.t.Decisions[c.ID]
		if t, ok := tools[c.Name]; decided || ok && x.r.policy(t) == PolicyAlways {
			run = append(run, c)
			continue
		}
		r := llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Text: InterruptedResult, IsError: true}
		if err := x.r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, r); err != nil {
			return history, fmt.Errorf("save tool result: %w", err)
		}
		history = append(history, r)
	}
	if len(run) == 0 {
		return history, nil
	}
	return x.runTools(ctx, tools, history, run)
}

// runTools runs calls in declared order, appending each result to the
// session as it exists. Every call gets its result, even when cancelled.
func (x *run) runTools(ctx context.Context, tools map[string]Tool, history []llm.Message, calls []llm.ToolCall) ([]llm.Message, error) {
	for _, call := range calls {
		result, outcome := x.runTool(ctx, tools, call)
		if outcome == awaitingApproval {
			continue // stays resumable: no result until someone decides
		}
		if err := x.r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, result); err != nil {
			return history, fmt.Errorf("save tool result: %w", err)
		}
		history = append(history, result)
	}
	if x.stopped {
		return history, errStopped
	}
	return history, ctx.Err()
}

// compact rewrites the history when it no longer fits, persisting the
// rewrite in one transaction.
func (x *run) compact(ctx context.Context, req llm.Request, history []llm.Message, force bool) ([]llm.Message, error) {
	c, ok := x.r.compactor()
	if !ok {
		return history, nil
	}
	out, info := c.compact(ctx, req, history, force)
	if info == nil {
		return history, nil
	}
	if err := x.r.Sessions.ReplaceMessages(ctx, x.t.SessionID, out); err != nil {
		return history, fmt.Errorf("save compacted session: %w", err)
	}
	if !x.emit(Event{Kind: EventCompaction, Compaction: info}) {
		return out, errStopped
	}
	return out, nil
}

// splitPending heals a history for resuming: the last assistant message's
// calls that have no result yet are returned as pending instead of being
// marked interrupted.
func splitPending(history []llm.Message) ([]llm.Message, []llm.ToolCall) {
	last := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == llm.RoleAssistant {
			last = i
			break
		}
		if history[i].Role != llm.RoleTool {
			break // a user message after it: nothing is pending
		}
	}
	if last < 0 || len(history[last].ToolCalls) == 0 {
		return Heal(history), nil
	}
	done := map[string]bool{}
	var results []llm.Message
	for _, m := range history[last+1:] {
		if m.Role == llm.RoleTool && !done[m.ToolCallID] {
			done[m.ToolCallID] = true
			results = append(results, m)
		}
	}
	out := Heal(history[:last])
	assistant := history[last]
	var pending []llm.ToolCall
	var answered []llm.Message
	for _, c := range assistant.ToolCalls {
		if !done[c.ID] {
			pending = append(pending, c)
			continue
		}
		for _, r := range results {
			if r.ToolCallID == c.ID {
				answered = append(answered, r)
			}
		}
	}
	// Answered calls keep their results, in declared order; the pending
	// ones are appended by runTools as they run.
	out = append(out, assistant)
	return append(out, answered...), pending
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	return clock.Sleep(ctx, d)
}

// Delay waits d on the runner's clock (RunnerConfig.Sleep), or until ctx
// ends: for tools that wait (agent/task's wait), so tests drive them with
// the clock they give the runner.
func (r *Runner) Delay(ctx context.Context, d time.Duration) error { return r.sleep(ctx, d) }

func (r *Runner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// withAuthors prefixes user messages with their author's name when more than
// one person speaks in the session, so the model can tell them apart.
func withAuthors(history []llm.Message) []llm.Message {
	authors := map[string]bool{}
	for _, m := range history {
		if m.Role == llm.RoleUser && m.Author != "" {
			authors[m.Author] = true
		}
	}
	if len(authors) < 2 {
		return history
	}
	out := make([]llm.Message, len(history))
	for i, m := range history {
		if m.Role == llm.RoleUser && m.Author != "" {
			m.Text = "[" + m.Author + "] " + m.Text
		}
		out[i] = m
	}
	return out
}
