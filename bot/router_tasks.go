package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// What the router keeps of a task while its turns run (docs/tasks.md):
// its state (running, waiting for an approval, paused, idle), durable so
// /status and a restart read it; the work log — each step's tool calls
// with a one-line result, the check steps, the state changes; and the
// checklist message, told of every change. A session without a plan has
// no task and gets none of it: most turns are plain chat.

// todoTool is the tool whose result means the plan changed
// (agent/task.Tasks.Todo).
const todoTool = "todo"

// Lengths of a work-log line's parts: a line is a glance, /worklog is
// not a transcript.
const (
	logArgsRunes   = 80
	logResultRunes = 120
)

// taskTurn follows one turn of a session that has, or gets, a task. Its
// methods do nothing on a nil taskTurn (tasks are off).
type taskTurn struct {
	r      *Router
	sid    string
	m      chat.Message // the turn's first message: where, and whose turn
	active bool         // the session has a task
	state  task.State
}

// beginTask starts following sid's turn for m: a task's state becomes
// running.
func (r *Router) beginTask(ctx context.Context, sid string, m chat.Message) *taskTurn {
	tt := r.followTask(ctx, sid, m)
	tt.set(ctx, task.Running, m.User.Name+"'s turn")
	return tt
}

// followTask is what follows a turn of sid for m; nil when tasks are off.
// A task still running when its turn begins is one a crash cut off: its
// checklist may lag its plan, and the same message is edited now.
func (r *Router) followTask(ctx context.Context, sid string, m chat.Message) *taskTurn {
	if r.cfg.Tasks == nil {
		return nil
	}
	tt := &taskTurn{r: r, sid: sid, m: m}
	k, ok, err := r.cfg.Tasks.Task(ctx, sid)
	if err != nil {
		r.log.Warn("task: read", "session", sid, "err", err)
		return tt
	}
	if ok {
		tt.active, tt.state = true, k.State
		if k.State == task.Running || k.State == task.WaitingHelpers {
			r.checklist.show(sid, m.Thread, m.ID)
		}
	}
	return tt
}

// observe records what ev means for the task.
func (tt *taskTurn) observe(ctx context.Context, ev agent.Event) {
	if tt == nil {
		return
	}
	switch ev.Kind {
	case agent.EventToolEnd:
		if ev.Budget != nil {
			tt.r.checklist.steps(tt.sid, *ev.Budget)
		}
		if ev.Tool.Name == todoTool && !ev.IsError {
			tt.planChanged(ctx) // the tool logs the plan's changes itself
			return
		}
		tt.log(ctx, "tool", toolLine(ev))
	case agent.EventApprovalNeeded:
		tt.set(ctx, task.WaitingApproval, "waiting for approval of "+ev.Approval.Call.Name)
	case agent.EventApprovalDecided:
		tt.set(ctx, task.Running, decisionWords(*ev.Decision))
	case agent.EventCheck:
		tt.log(ctx, "check", "check step: verifying the items marked done before the final answer")
	case agent.EventDone:
		if ev.Paused {
			tt.set(ctx, task.Paused, format.Squash(ev.Text, logResultRunes))
		} else {
			tt.set(ctx, task.Idle, "finished")
		}
	}
}

// taskRedelivered settles the task of a turn whose answer a crash kept
// from being shown: the model had finished (or paused), the router never
// saw it. The checklist catches up with the plan.
func (r *Router) taskRedelivered(ctx context.Context, sid string, m chat.Message, answer string) {
	r.followTask(ctx, sid, m).observe(ctx, agent.Event{Kind: agent.EventDone, Text: answer, Paused: strings.HasPrefix(answer, agent.PauseMark)})
}

// ended records a turn that failed or was stopped: the task waits for
// someone to continue it.
func (tt *taskTurn) ended(ctx context.Context, err error, stopped bool) {
	if tt == nil {
		return
	}
	why := "stopped with /stop"
	if !stopped {
		why = "failed: " + format.Squash(err.Error(), logResultRunes)
	}
	tt.set(ctx, task.Idle, why)
}

// planChanged is the todo tool having saved a plan: the first one makes
// the session's task (the store creates it running, its author this
// turn's); every one updates the checklist.
func (tt *taskTurn) planChanged(ctx context.Context) {
	r := tt.r
	if !tt.active {
		tt.active, tt.state = true, task.Running
		// /resume by someone else starts a turn in the author's name.
		if err := r.cfg.KV.Set(ctx, taskAuthorKey(tt.sid), tt.m.User.Name); err != nil {
			r.log.Warn("task: record its author", "session", tt.sid, "err", err)
		}
		tt.log(ctx, "state", "running: task planned in "+tt.m.User.Name+"'s turn")
	}
	r.checklist.show(tt.sid, tt.m.Thread, tt.m.ID)
}

// set records state s, and why, when it is a change.
func (tt *taskTurn) set(ctx context.Context, s task.State, why string) {
	if tt == nil || !tt.active || s == tt.state {
		return
	}
	ctx = context.WithoutCancel(ctx) // a stop is a state worth keeping
	if err := tt.r.cfg.Tasks.SetState(ctx, tt.sid, s); err != nil {
		tt.r.log.Warn("task: set state", "session", tt.sid, "state", s, "err", err)
		return
	}
	old := tt.state
	tt.state = s
	tt.log(ctx, "state", string(s)+": "+why)
	switch {
	case headed(old) || headed(s):
		tt.r.checklist.show(tt.sid, tt.m.Thread, tt.m.ID)
	case s == task.Idle:
		tt.r.checklist.settle(tt.sid)
	}
}

// headed reports the states the checklist's header shows.
func headed(s task.State) bool { return s == task.Paused || s == task.WaitingApproval }

// log appends one line to the task's work log.
func (tt *taskTurn) log(ctx context.Context, kind, text string) {
	if tt.active {
		tt.r.logTask(context.WithoutCancel(ctx), tt.sid, kind, text)
	}
}

// toolLine is a tool call as the work log shows it: the tool, its
// arguments and the first line of its result, each cut short.
func toolLine(ev agent.Event) string {
	args := format.Squash(compactJSON(ev.Tool.Arguments), logArgsRunes)
	result := format.Squash(firstLine(strings.TrimSpace(ev.Result)), logResultRunes)
	if ev.IsError {
		return fmt.Sprintf("%s %s → failed: %s", ev.Tool.Name, args, result)
	}
	return fmt.Sprintf("%s %s → %s", ev.Tool.Name, args, result)
}

// compactJSON is raw without its insignificant spaces, or raw itself.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func decisionWords(d agent.Decision) string {
	switch {
	case d.Expired:
		return "the approval expired"
	case d.Approved:
		return "approved by " + d.By
	default:
		return "denied by " + d.By
	}
}

// taskAuthorKey is where the router keeps the name of a session's task's
// author, for a /resume by someone else.
func taskAuthorKey(sid string) string { return "task-author:" + sid }

// PauseAsked reports whether someone asked session sid's task to pause
// (/pause): its helpers (agent/task delegate) pause too.
func (r *Router) PauseAsked(sid string) bool { return r.pauseAsked(sid)() }

// pauseAsked is the running turn's Turn.Pause: /pause sets the flag.
func (r *Router) pauseAsked(sid string) func() bool {
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.session(sid).pause
	}
}
