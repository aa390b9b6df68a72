package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent/llm"
)

// loop is one turn: the model is asked, its tool calls run, and it is
// asked again until it answers, within the turn's step budget.
func (x *run) loop(ctx context.Context) error {
	if err := x.start(ctx); err != nil {
		return err
	}
	for step := 0; ; step++ {
		view := x.plan(ctx)
		if stop, err := x.outOfSteps(ctx, step, view); stop {
			return err
		}
		x.budget = nil // a turn is a task from the step its plan exists
		if view.Total > 0 {
			view.Budget = StepBudget{Step: step, Limit: x.stepLimit(view)}
			_, view.CanWait = x.byName["wait"]
			x.budget = &view.Budget
		}
		x.req.Tail = TurnContext(x.skills, view)
		resp, again, err := x.ask(ctx)
		switch {
		case again:
			step--
			continue
		case err != nil:
			return err
		}
		if err := x.keep(ctx, resp); err != nil {
			return err
		}
		if len(resp.ToolCalls) == 0 {
			checking, err := x.check(ctx, resp)
			switch {
			case err != nil:
				return err
			case checking:
				continue
			}
			x.emit(Event{Kind: EventDone, Text: resp.Text, Usage: x.usage, Model: x.model})
			return nil
		}
		if x.history, err = x.runTools(ctx, x.byName, x.history, resp.ToolCalls); err != nil {
			return err
		}
		if x.history, err = x.steer(ctx, x.history); err != nil {
			return err
		}
	}
}

// start loads the session and the author's memory, records the turn's
// message, settles what a cut-off turn left open, and builds the request
// every step sends.
func (x *run) start(ctx context.Context) error {
	r := x.r
	history, err := r.Sessions.Messages(ctx, x.t.SessionID)
	if err != nil {
		return fmt.Errorf("load session: %w", err)
	}
	var pending []llm.ToolCall
	if x.t.Resume {
		history, pending = splitPending(history)
	} else {
		history = Heal(history)
	}
	var mem Memory
	var team []string
	if !r.NoMemory {
		if mem, err = r.Memory.Memory(ctx, x.t.Caller.UserKey); err != nil {
			return fmt.Errorf("load memory: %w", err)
		}
		if team, err = r.teamNotes(ctx, x.t.Caller.Team); err != nil {
			return err
		}
	}
	if !x.t.Resume {
		user := llm.Message{Role: llm.RoleUser, Text: x.t.Text, Author: x.t.Caller.UserName, Key: x.t.Key, Images: x.t.Images, Preamble: Preamble(r.now())}
		if err := r.Sessions.AppendMessages(ctx, x.t.SessionID, user); err != nil {
			return fmt.Errorf("save message: %w", err)
		}
		history = append(history, user)
	}
	x.byName = toolIndex(x.tools())
	x.tainted = x.tainted || taintedHistory(history, x.byName, x.t.Caller.UserName)
	if len(pending) > 0 {
		if history, err = x.resumePending(ctx, x.byName, history, pending); err != nil {
			return err
		}
	}
	x.history = history
	if r.Skills != nil {
		// A failure to list skills costs the turn its skills, not its answer.
		if x.skills, err = r.Skills.SkillIndex(ctx, x.t.Caller, x.t.Text); err != nil {
			r.logger().Warn("list skills", "session", x.t.SessionID, "err", err)
			x.skills = SkillList{}
		}
	}
	x.req = llm.Request{
		System: SystemPrompt(PromptInput{
			Persona: r.Persona, Place: x.t.Place, User: x.t.Caller, Memory: mem, NoMemory: r.NoMemory, Team: team,
			Limits: r.MemoryLimits, Tools: toolNames(x.tools()), Skills: x.skills,
		}),
		Tools:     toolSpecs(x.tools()),
		MaxTokens: r.MaxTokens,
		CacheKey:  x.t.SessionID,
		Reasoning: r.Reasoning,
	}
	return nil
}

// outOfSteps reports whether the turn stops before step: a turn without a
// plan fails when its budget is spent; a task pauses then, or when /pause
// asked.
func (x *run) outOfSteps(ctx context.Context, step int, view PlanView) (bool, error) {
	limit := x.stepLimit(view)
	if step >= limit && view.Total == 0 {
		return true, fmt.Errorf("stopped after %d model calls without a final answer", limit)
	}
	if step >= limit || step > 0 && x.t.Pause != nil && x.t.Pause() {
		return true, x.pause(ctx, step, view, step < limit)
	}
	return false, nil
}

// stepLimit is the turn's budget of model calls: a task's, a helper's, or
// a plain turn's.
func (x *run) stepLimit(view PlanView) int {
	limit := cmp.Or(max(x.r.MaxSteps, 0), 25)
	if view.Total > 0 {
		limit = cmp.Or(x.r.TaskSteps, DefaultTaskSteps)
	}
	if x.t.Sub != nil && x.t.Sub.Steps > 0 {
		limit = x.t.Sub.Steps
	}
	return limit
}

// ask compacts the history as the window needs and calls the model. again
// says the window turned out smaller than thought: the history was
// compacted hard, once, and the step is to be taken again. What a call
// cut off had said is kept, marked, for a later turn to see.
func (x *run) ask(ctx context.Context) (resp *llm.Response, again bool, err error) {
	r := x.r
	if x.history, err = x.compact(ctx, x.req, x.history, false); err != nil {
		return nil, false, err
	}
	x.req.Messages = r.forModel(withAuthors(x.history))
	estimate := EstimateRequest(x.req)
	resp, partial, err := x.call(ctx, x.req)
	if le, ok := llm.AsError(err); ok && le.Kind == llm.KindContextOverflow && !x.overflowed {
		x.overflowed = true
		if x.history, err = x.compact(ctx, x.req, x.history, true); err != nil {
			return nil, false, err
		}
		return nil, true, nil
	}
	if err != nil {
		if partial != "" && (ctx.Err() != nil || errors.Is(err, errStopped)) {
			cut := llm.Message{Role: llm.RoleAssistant, Text: partial + InterruptedMarker}
			if perr := r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, cut); perr != nil {
				r.logger().Error("save interrupted answer", "session", x.t.SessionID, "err", perr)
			}
		}
		return nil, false, err
	}
	r.cal.Observe(estimate, resp.Usage.InputTokens)
	return resp, false, nil
}

// keep counts resp's usage and records the model's answer.
func (x *run) keep(ctx context.Context, resp *llm.Response) error {
	x.usage = x.usage.Add(resp.Usage)
	x.model = resp.Model
	usage := resp.Usage
	answer := llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls,
		Model: resp.Model, Thinking: resp.Thinking, Usage: &usage}
	if err := x.r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, answer); err != nil {
		return fmt.Errorf("save answer: %w", err)
	}
	x.history = append(x.history, answer)
	return nil
}

// check is the check step: before a task's final answer, what was marked
// done is verified, and a failed check reopens an item so the task goes
// on. checking says the step was taken and the model is to be asked again.
func (x *run) check(ctx context.Context, resp *llm.Response) (checking bool, err error) {
	v := x.plan(ctx)
	if v.Done == 0 || x.checks >= cmp.Or(x.r.MaxChecks, DefaultMaxChecks) || x.checkedLast(x.history) {
		return false, nil
	}
	x.checks++
	check := llm.Message{Role: llm.RoleUser, Text: CheckPrompt}
	if err := x.r.Sessions.AppendMessages(context.WithoutCancel(ctx), x.t.SessionID, check); err != nil {
		return false, fmt.Errorf("save the check: %w", err)
	}
	x.history = append(x.history, check)
	if !x.emit(Event{Kind: EventCheck, Text: resp.Text}) {
		return false, errStopped
	}
	return true, nil
}
