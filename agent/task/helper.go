package task

import (
	"context"
	"errors"
	"time"
)

// Helpers (docs/tasks.md, "Helpers"): the delegate tool hands items of a
// task's plan to helpers, each a sub-session of the task's session that
// runs concurrently with the others, for the task's author. Each helper
// is a durable record, so its result outlives a restart, a stop or a
// parent that stopped waiting.

// HelperStatus is where a helper stands.
type HelperStatus string

const (
	// HelperPending: created, waiting for a slot.
	HelperPending HelperStatus = "pending"
	// HelperRunning: its sub-session is running (or was, when the
	// process died).
	HelperRunning HelperStatus = "running"
	// HelperDone: it answered; Result is its answer.
	HelperDone HelperStatus = "done"
	// HelperFailed: it ended with an error; Result says which.
	HelperFailed HelperStatus = "failed"
	// HelperTimeout: it ran out of time (tasks.helper_timeout_minutes).
	HelperTimeout HelperStatus = "timeout"
	// HelperStopped: its parent was stopped or shut down while it ran;
	// its sub-session continues when the item is delegated again.
	HelperStopped HelperStatus = "stopped"
	// HelperPaused: its parent was paused (/pause) while it ran; it
	// continues, with the instruction then given, when the item is
	// delegated again.
	HelperPaused HelperStatus = "paused"
)

// finished reports whether the helper has a result of its own; the other
// statuses continue its sub-session when the item is delegated again.
func (s HelperStatus) finished() bool {
	return s == HelperDone || s == HelperFailed || s == HelperTimeout
}

// Helper is one helper as kept.
type Helper struct {
	ID int64
	// Parent is the session of the task that delegated; Session the
	// helper's own sub-session (in the parent's conversation, bound to no
	// thread).
	Parent, Session string
	// Item is the 1-based index of the parent plan's item it works on,
	// ItemText that item's text when it was delegated: a plan rewritten
	// since makes another item of that index.
	Item     int
	ItemText string
	// Instruction is what the parent asked it to do, last.
	Instruction string
	Status      HelperStatus
	Result      string
	// Call is the id of the delegate call that last ran or reported it:
	// whether the model read its result is whether that call has one.
	Call string
	// Key marks the user message that started its last turn on the
	// sub-session (agent.Runner.Progress).
	Key       string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// HelperStore keeps helpers (store.DB).
type HelperStore interface {
	// AddHelper creates h's sub-session (in the conversation of h.Parent,
	// bound to no thread) and its record, in one transaction, and returns
	// h with its ID, Session and times set.
	AddHelper(ctx context.Context, h Helper) (Helper, error)
	// SaveHelper records h's Instruction, Status, Result, Call and Key.
	SaveHelper(ctx context.Context, h Helper) error
	// Helpers lists the helpers of a parent session, oldest first.
	Helpers(ctx context.Context, parent string) ([]Helper, error)
	// EditPlan changes the session's plan in one transaction: edit gets
	// the plan as kept and returns the work log's lines for its change.
	// A session without a plan is ErrNoPlan.
	EditPlan(ctx context.Context, sessionID string, edit func(p *Plan) ([]Entry, error)) error
}

// ErrNoPlan: the session has no plan.
var ErrNoPlan = errors.New("no plan")

// Slots bound how many helpers run at once, across all tasks.
type Slots interface {
	// Acquire waits for a slot, or for ctx to end (then it holds none).
	Acquire(ctx context.Context) error
	Release()
}

// NewSlots returns a bound of n helpers at a time.
func NewSlots(n int) Slots { return semaphore(make(chan struct{}, max(n, 1))) }

type semaphore chan struct{}

func (s semaphore) Acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s semaphore) Release() { <-s }
