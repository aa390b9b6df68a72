// Package task is what makes a long piece of work in a thread a task: the
// plan the model keeps with the todo tool, the work log, and the task's
// state — kept with the session in SQLite, so people can see where it
// stands and a restart resumes it (docs/tasks.md).
package task

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
)

// Status is where one item of a plan stands.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
	Failed     Status = "failed"
	Blocked    Status = "blocked"
)

// Item is one item of a plan.
type Item struct {
	Text   string `json:"text"`
	Status Status `json:"status"`
	Note   string `json:"note,omitempty"`
}

// Plan is a task's to-do list, in order.
type Plan struct {
	Items []Item `json:"items"`
}

// Limits of a plan: the model keeps it, a person reads it in one message.
const (
	MaxItems    = 30
	MaxItemText = 200
	MaxNote     = 300
)

// ErrPlan wraps what is wrong with a plan the model wrote.
var ErrPlan = errors.New("plan")

// Validate reports what is wrong with p, wrapping ErrPlan.
func (p Plan) Validate() error {
	if len(p.Items) > MaxItems {
		return fmt.Errorf("%w: %d items, at most %d: merge some", ErrPlan, len(p.Items), MaxItems)
	}
	for i, it := range p.Items {
		switch {
		case strings.TrimSpace(it.Text) == "":
			return fmt.Errorf("%w: item %d has no text", ErrPlan, i+1)
		case utf8.RuneCountInString(it.Text) > MaxItemText:
			return fmt.Errorf("%w: item %d is longer than %d characters", ErrPlan, i+1, MaxItemText)
		case utf8.RuneCountInString(it.Note) > MaxNote:
			return fmt.Errorf("%w: item %d's note is longer than %d characters", ErrPlan, i+1, MaxNote)
		}
		switch it.Status {
		case Pending, InProgress, Done, Failed, Blocked:
		default:
			return fmt.Errorf("%w: item %d: status %q; want pending, in_progress, done, failed or blocked", ErrPlan, i+1, it.Status)
		}
	}
	return nil
}

// Counts are how many items are done, in all, and still open (neither
// done nor failed).
func (p Plan) Counts() (done, total, open int) {
	for _, it := range p.Items {
		switch it.Status {
		case Done:
			done++
		case Failed:
		default:
			open++
		}
	}
	return done, len(p.Items), open
}

var marks = map[Status]string{Pending: "☐", InProgress: "◐", Done: "☑", Failed: "✗", Blocked: "⛔"}

// Render is the plan as people and the model read it: one line an item,
// its mark, its text and its note.
func (p Plan) Render() string {
	var b strings.Builder
	for i, it := range p.Items {
		fmt.Fprintf(&b, "%s %d. %s", marks[it.Status], i+1, it.Text)
		if it.Status != Pending && it.Status != Done {
			fmt.Fprintf(&b, " (%s)", strings.ReplaceAll(string(it.Status), "_", " "))
		}
		if it.Note != "" {
			fmt.Fprintf(&b, " — %s", it.Note)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// View is p as the runner needs it.
func (p Plan) View() agent.PlanView {
	if len(p.Items) == 0 {
		return agent.PlanView{}
	}
	done, total, open := p.Counts()
	return agent.PlanView{Text: p.Render(), Done: done, Total: total, Open: open}
}

// Changes are the lines of the work log that going from old to p writes:
// items added, and items whose status changed.
func (p Plan) Changes(old Plan) []string {
	was := map[string]Status{}
	for _, it := range old.Items {
		was[it.Text] = it.Status
	}
	var out []string
	for i, it := range p.Items {
		s, ok := was[it.Text]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("item %d added: %s (%s)", i+1, it.Text, it.Status))
		case s != it.Status:
			line := fmt.Sprintf("item %d %s → %s: %s", i+1, s, it.Status, it.Text)
			if it.Note != "" {
				line += " — " + it.Note
			}
			out = append(out, line)
		}
	}
	return out
}

// State is where a task stands.
type State string

const (
	Idle            State = "idle"
	Running         State = "running"
	WaitingApproval State = "waiting_approval"
	WaitingHelpers  State = "waiting_helpers"
	Paused          State = "paused"
)

// Task is a session's task as kept.
type Task struct {
	SessionID string
	Plan      Plan
	State     State
	// Author is whose task it is (the user key of the turn that wrote the
	// plan): who may /resume it, with the thread's starter and admins.
	Author string
	// Checklist is the platform message showing the plan ("" before it
	// is posted), as the chat core encodes it.
	Checklist string
	UpdatedAt time.Time
}

// Entry is one line of a task's work log.
type Entry struct {
	At   time.Time
	Kind string // "tool", "plan", "check", "state", "helper"
	Text string
}
