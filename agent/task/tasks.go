package task

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent"
)

// Store keeps tasks and their work logs (store.DB).
type Store interface {
	// Task is a session's task; ok is false when it has none.
	Task(ctx context.Context, sessionID string) (t Task, ok bool, err error)
	// SavePlan replaces the session's plan and appends log, atomically,
	// creating the task (author, state running) when there is none. It
	// returns the plan it replaced.
	SavePlan(ctx context.Context, sessionID, author string, p Plan, log []Entry) (old Plan, err error)
	// SetState records the task's state; a session without a task has
	// none to set (no error).
	SetState(ctx context.Context, sessionID string, s State) error
	// SetChecklist records the message that shows the plan.
	SetChecklist(ctx context.Context, sessionID, ref string) error
	// AppendLog adds lines to the session's work log.
	AppendLog(ctx context.Context, sessionID string, entries ...Entry) error
	// Log is the last n lines of the work log, oldest first.
	Log(ctx context.Context, sessionID string, n int) ([]Entry, error)
}

// Tasks are the sessions' tasks. They implement agent.Plans.
type Tasks struct {
	Store Store
	Now   func() time.Time
}

func (t Tasks) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// Plan implements agent.Plans.
func (t Tasks) Plan(ctx context.Context, sessionID string) (agent.PlanView, error) {
	k, ok, err := t.Store.Task(ctx, sessionID)
	if err != nil || !ok {
		return agent.PlanView{}, err
	}
	return k.Plan.View(), nil
}

// TodoArgs is the todo tool's argument contract.
type TodoArgs struct {
	Items []Item `json:"items" jsonschema:"the whole to-do list, in order: each item's text, status (pending, in_progress, done, failed, blocked) and an optional short note"`
}

// Todo returns the todo tool: the model writes the task's to-do list and
// rewrites it as it works. The list is kept with the session, shown in the
// thread as one checklist message edited in place, and given to the model
// at every step.
func (t Tasks) Todo() (agent.Tool, error) {
	return agent.Local(agent.Func("todo",
		"Keep the to-do list of a task that takes several steps: write the whole list (each item's text and status: pending, in_progress, done, failed, blocked; an optional short note), "+
			"then rewrite it whenever an item starts, ends or changes. People see it in the thread. Mark an item done only when the tools' results show it is; use it for work of three steps or more.",
		func(ctx context.Context, c agent.Caller, a TodoArgs) (string, error) {
			p := Plan{Items: a.Items}
			if err := p.Validate(); err != nil {
				return "", err
			}
			if c.SessionID == "" {
				return "", fmt.Errorf("a to-do list needs a conversation")
			}
			k, _, err := t.Store.Task(ctx, c.SessionID)
			if err != nil {
				return "", err
			}
			var log []Entry
			for _, line := range p.Changes(k.Plan) {
				log = append(log, Entry{At: t.now(), Kind: "plan", Text: line})
			}
			if _, err := t.Store.SavePlan(ctx, c.SessionID, c.UserKey, p, log); err != nil {
				return "", err
			}
			done, total, _ := p.Counts()
			return fmt.Sprintf("Plan saved (%d of %d done):\n%s", done, total, p.Render()), nil
		}))
}
