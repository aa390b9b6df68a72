package task

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent"
)

// MaxWait is the longest one wait call may last: the turn holds its place
// (and a slot) while it waits, so a longer wait is a reminder's job.
const MaxWait = 30 * time.Minute

// WaitArgs is the wait tool's argument contract (docs/tasks.md).
type WaitArgs struct {
	For            string `json:"for" jsonschema:"what to wait for: reply (a message from the person who asked, in this conversation) or reminder (one of their reminders, set with remind, shown in this conversation)"`
	TimeoutSeconds int    `json:"timeout_seconds" jsonschema:"how long to wait at most, 1 to 1800 seconds; then the call returns anyway"`
}

const waitName = "wait"

// Wait outcomes, the first words of the tool's result.
const (
	WaitReplied    = "A reply arrived"
	WaitTimedOut   = "No reply"
	WaitReminded   = "The reminder was shown"
	WaitNoReminder = "No reminder"
)

// Wait returns the wait tool: a task that needs the person's answer, a
// reminder's time (or just time to pass) ends its step waiting, instead
// of spinning through its step budget asking again. It returns when the
// turn's author writes in the conversation (agent.Caller.Wake: only their
// messages steer the turn, docs/architecture.md, Who acts) — the message
// then joins the history after the result — or, waiting for a reminder,
// when one of the author's reminders is shown in the conversation
// (agent.Caller.Reminded), or when the timeout passes, on the clock sleep
// gives (nil: the runner's, agent.Runner.Delay).
func Wait(sleep func(ctx context.Context, d time.Duration) error) (agent.Tool, error) {
	return agent.Local(agent.Func(waitName,
		"Wait, at most timeout_seconds (up to 1800), instead of checking again and again: for the person who asked to reply in this conversation "+
			"(for: reply; use it after asking them something the task cannot go on without, or to let time pass before looking again), "+
			"or for one of their reminders to be shown here (for: reminder; set it with remind first, due within the timeout). "+
			"The result says what came or that the time ran out; a waiting step costs no other steps.",
		func(ctx context.Context, c agent.Caller, a WaitArgs) (string, error) {
			d := time.Duration(a.TimeoutSeconds) * time.Second
			if d <= 0 || d > MaxWait {
				return "", fmt.Errorf("timeout_seconds must be between 1 and %d", int(MaxWait/time.Second))
			}
			on := sleep
			if on == nil && c.Runner != nil {
				on = c.Runner.Delay
			}
			if on == nil {
				return "", fmt.Errorf("wait: no clock to wait on")
			}
			switch a.For {
			case "reply":
				if c.Wake == nil {
					return "", fmt.Errorf("nobody can reply to this turn while it runs here: end the turn with your question instead")
				}
				return waitFor(ctx, c.Wake, d, on)
			case "reminder":
				if c.Reminded == nil {
					return "", fmt.Errorf("no reminder can reach this turn while it runs here: end the turn, and the reminder will still be shown")
				}
				return waitReminder(ctx, c.Reminded, d, on)
			}
			return "", fmt.Errorf(`wait for %q: want "reply" or "reminder"`, a.For)
		}))
}

// waitFor returns when wake fires or d has passed on sleep's clock.
func waitFor(ctx context.Context, wake <-chan struct{}, d time.Duration, sleep func(context.Context, time.Duration) error) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slept := make(chan error, 1)
	go func() { slept <- sleep(ctx, d) }()
	select {
	case <-wake:
		return WaitReplied + ": it follows this result.", nil
	case err := <-slept:
		if err != nil {
			return "", fmt.Errorf("wait: %w", err)
		}
		return fmt.Sprintf("%s after %s: the wait timed out.", WaitTimedOut, d), nil
	}
}

// waitReminder returns when a reminder's text comes on reminded or d has
// passed on sleep's clock.
func waitReminder(ctx context.Context, reminded <-chan string, d time.Duration, sleep func(context.Context, time.Duration) error) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slept := make(chan error, 1)
	go func() { slept <- sleep(ctx, d) }()
	select {
	case text := <-reminded:
		return fmt.Sprintf("%s in this conversation: %q", WaitReminded, text), nil
	case err := <-slept:
		if err != nil {
			return "", fmt.Errorf("wait: %w", err)
		}
		return fmt.Sprintf("%s after %s: the wait timed out.", WaitNoReminder, d), nil
	}
}
