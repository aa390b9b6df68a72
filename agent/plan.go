package agent

import (
	"cmp"
	"context"
	"fmt"
)

// Long tasks (docs/tasks.md): a turn whose session has a plan — the to-do
// list the model keeps with the todo tool (agent/task) — is a task. The
// runner gives the plan to the model at every step (it is never compacted
// away), may take more steps (TaskSteps), checks the items marked done
// before the final answer (the check step), and pauses rather than fails
// when its budget is spent or someone asks it to pause.

// Plans tell the runner the plan of a session (agent/task implements it).
type Plans interface {
	Plan(ctx context.Context, sessionID string) (PlanView, error)
}

// PlanView is a session's plan as the runner needs it.
type PlanView struct {
	// Text is the plan as the model reads it; "" when there is none.
	Text string
	// Done and Total count its items; Open those neither done nor failed.
	Done, Total, Open int
	// Heading is the line above the plan in the prompt; "" is a task's
	// own. A helper reads its parent's plan under another (agent/task).
	Heading string
	// Budget is the turn's step budget, set by the runner at each step (the
	// store knows nothing of it); zero when the turn has none to show.
	Budget StepBudget
	// CanWait says the turn has the wait tool (agent/task), which the
	// budget's line then points to.
	CanWait bool
}

// StepBudget is where a turn stands against its step limit: Step model
// calls taken of Limit (Left = Limit - Step). A task is told it at every
// step, so it can plan what fits rather than be cut off mid-way, and the
// checklist shows it (Event.Budget).
type StepBudget struct {
	Step, Limit int
}

// Left is how many model calls the turn may still make.
func (b StepBudget) Left() int { return max(b.Limit-b.Step, 0) }

// Defaults of a task's budgets.
const (
	DefaultTaskSteps = 60
	DefaultMaxChecks = 2
)

// CheckPrompt asks the model, before a task's final answer, to verify what
// it marked done. It is stored as a user message (the work log shows it).
const CheckPrompt = "[check] Before your final answer: verify each item you marked done against what the tools actually returned. " +
	"If one is not done, reopen it with todo (status pending, with a note saying why) and go on; if all hold, give your final answer."

// PauseMark begins a paused task's answer: the chat core tells a pause
// from a final answer by it when a crash kept it from seeing the event.
const PauseMark = "⏸ Paused "

// pauseNote is a paused task's answer.
func pauseNote(steps int, v PlanView, asked bool) string {
	why := fmt.Sprintf("after %d steps", steps)
	if asked {
		why = "as asked"
	}
	return fmt.Sprintf("%s%s: %d of %d done — reply *continue* or use /resume.", PauseMark, why, v.Done, v.Total)
}

// plan is the session's plan now; a failure to read it costs the step
// its plan, not its answer.
func (x *run) plan(ctx context.Context) PlanView {
	plans := x.r.Plans
	if x.t.Sub != nil {
		plans = x.t.Sub.Plans
	}
	if plans == nil {
		return PlanView{}
	}
	v, err := plans.Plan(ctx, x.t.SessionID)
	if err != nil {
		x.r.logger().Warn("read the plan", "session", x.t.SessionID, "err", err)
		return PlanView{}
	}
	return v
}

// PlanSection is what a plan adds to each step, after the conversation
// (see TurnContext: the plan changes from step to step, so it stays out of
// the cached prefix); "" when there is none. Exported so its cost per step
// can be measured.
func PlanSection(v PlanView) string {
	if v.Text == "" {
		return ""
	}
	section := "\n\n" + cmp.Or(v.Heading, planHeading) + "\n" + v.Text
	if b := v.Budget; b.Limit > 0 {
		section += fmt.Sprintf("\n\n"+budgetLine, b.Left(), b.Limit)
		if v.CanWait {
			section += " " + waitHint
		}
	}
	return section
}

// budgetLine tells a task its step budget: what is left when it is spent
// waits for a person to say continue, so the model should finish or
// reach a clean stopping point first, and wait rather than poll.
const budgetLine = "Steps left in this turn: %d of %d (each model call is a step; when none are left the task pauses until someone says continue). " +
	"Plan the work to fit."

// waitHint follows budgetLine when the turn can wait: polling for a reply
// is the usual way a budget goes to waste.
const waitHint = "To wait for a reply, use the wait tool rather than checking again and again."

// planHeading introduces a task's own plan in the prompt.
const planHeading = "## Your plan for this task (keep it current with the todo tool)"

// spent is the task's budget with the current step taken, nil outside a
// task.
func (x *run) spent() *StepBudget {
	if x.budget == nil {
		return nil
	}
	return &StepBudget{Step: x.budget.Step + 1, Limit: x.budget.Limit}
}
