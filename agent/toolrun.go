package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/llm"
)

// tools are the tools of the run: its helper's, or the runner's.
func (x *run) tools() []Tool {
	if x.t.Sub != nil {
		return x.t.Sub.Tools
	}
	return x.r.Tools
}

func toolIndex(tools []Tool) map[string]Tool {
	idx := make(map[string]Tool, len(tools))
	for _, t := range tools {
		idx[t.Name()] = t
	}
	return idx
}

func toolNames(tools []Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name()
	}
	return names
}

func toolSpecs(tools []Tool) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		specs[i] = t.Spec()
	}
	return specs
}

// policy is the effective approval policy of a tool: config wins over the
// tool's own default.
func (r *Runner) policy(t Tool) Policy {
	if mandatory(t) {
		return PolicyAlways
	}
	if p, ok := r.Policies[t.Name()]; ok {
		return p
	}
	if a, ok := t.(Approvable); ok {
		return a.ApprovalPolicy()
	}
	return PolicyNever
}

// toolOutcome says whether a call has its result, or is still waiting for
// a person's decision.
type toolOutcome int

const (
	// resulted: the call has a result message, to be saved.
	resulted toolOutcome = iota
	// awaitingApproval: the run was cancelled (shutdown) while the call's
	// approval was undecided. The call keeps no result, so the approval
	// stays decidable: a decision after a restart, or the recovered turn
	// asking again, continues it.
	awaitingApproval
)

// mandatory reports whether t's approval can never be waived.
func mandatory(t Tool) bool {
	m, ok := t.(Mandatory)
	return ok && m.ApprovalMandatory()
}

// runTool runs one call and returns its result message. Nothing a tool
// does (bad arguments, an error, a panic, a refusal) fails the run: the
// model sees it as an error result and can react.
func (x *run) runTool(ctx context.Context, tools map[string]Tool, call llm.ToolCall) (llm.Message, toolOutcome) {
	result := llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name}
	fail := func(text string) (llm.Message, toolOutcome) {
		result.Text, result.IsError = text, true
		return result, resulted
	}
	if x.stopped || ctx.Err() != nil {
		return fail(InterruptedResult)
	}
	tool, ok := tools[call.Name]
	if !ok {
		return fail(fmt.Sprintf("unknown tool %q", call.Name))
	}
	caller := x.t.Caller
	caller.SessionID = x.t.SessionID
	caller.CallID = call.ID
	caller.Tainted = x.tainted
	caller.Runner = x.r
	caller.Wake = x.t.Wake
	caller.Reminded = x.t.Reminded
	var foreign []string
	if x.tainted {
		foreign = x.mentions().foreign(egressTargets(tool, call.Arguments))
	}
	if x.r.policy(tool) == PolicyAlways || len(foreign) > 0 {
		text, verdict := x.approve(ctx, tool, call, caller, foreign)
		switch verdict {
		case approvalPending:
			return result, awaitingApproval
		case approvalRefused:
			return fail(text)
		}
	}
	if !x.emit(Event{Kind: EventToolStart, Tool: &call}) {
		return fail(InterruptedResult)
	}
	start := x.r.now()
	out, imgs, err := x.execute(ctx, tool, caller, call.Arguments)
	if ctx.Err() != nil {
		out, imgs, err = "", nil, fmt.Errorf("%s", InterruptedResult)
	}
	transient := false
	if err != nil {
		result.Text, result.IsError = err.Error(), true
		// Classified here, where the error is still typed: past this
		// point it is only text, and text must not decide it.
		transient = Transient(err)
	} else {
		result.Text = truncate(out, x.r.maxResultChars())
		if len(imgs) > 0 {
			var note string
			result.Images, note = x.r.toolImages(call.Name, imgs)
			result.Text = strings.TrimSpace(result.Text + "\n" + note)
		}
	}
	x.emit(Event{Kind: EventToolEnd, Tool: &call, Result: result.Text, IsError: result.IsError, Transient: transient,
		Duration: x.r.now().Sub(start), Budget: x.spent()})
	if untrusted(tool) {
		x.tainted = true // what it returned is now in the conversation
	}
	return result, resulted
}

// untrusted reports whether t's results carry text from outside.
func untrusted(t Tool) bool {
	u, ok := t.(Untrusted)
	return ok && u.UntrustedOutput()
}

// taintedHistory reports whether the conversation already holds untrusted
// content: a result of an untrusted tool, or a message by someone other
// than the caller (in a shared thread). Steering by others is refused, but
// their earlier turns are in the history the model reads.
func taintedHistory(history []llm.Message, tools map[string]Tool, caller string) bool {
	for _, m := range history {
		switch m.Role {
		case llm.RoleTool:
			if t, ok := tools[m.ToolName]; ok && untrusted(t) {
				return true
			}
		case llm.RoleUser:
			if m.Author != "" && caller != "" && m.Author != caller {
				return true
			}
		}
	}
	return false
}

// approvalVerdict is what asking for approval came to.
type approvalVerdict int

const (
	approvalGranted approvalVerdict = iota
	approvalRefused                 // denied, expired or failed: the text says which
	approvalPending                 // undecided when the run was cancelled
)

// approve asks the turn's Approver (Caller.Approve) and reports the model-facing refusal text.
//
// foreign are the places the call sends data to that its author never
// wrote, in a turn that read text from outside: a call that needs no
// approval of its own goes to the author alone, privately, since it may
// carry their data; one that does is shown to its approvers with that
// risk.
func (x *run) approve(ctx context.Context, tool Tool, call llm.ToolCall, caller Caller, foreign []string) (string, approvalVerdict) {
	if d, ok := x.t.Decisions[call.ID]; ok {
		return x.granted(tool, call, caller, d)
	}
	if caller.Approve == nil {
		return "denied: this tool needs approval and no one can approve it here", approvalRefused
	}
	summary := call.Name + " " + string(call.Arguments)
	if a, ok := tool.(Approvable); ok {
		summary = a.Summarize(call.Arguments)
	}
	req := &ApprovalRequest{SessionID: x.t.SessionID, Caller: caller, Call: call, Summary: summary, Mandatory: mandatory(tool)}
	if r, ok := tool.(Risky); ok {
		req.Risks = r.Risks(call.Arguments)
	}
	if in, ok := tool.(Inspector); ok {
		req.Summary, req.Risks = in.Inspect(caller, call.Arguments)
	}
	if len(foreign) > 0 {
		req.Risks = append(req.Risks, egressRisk(foreign))
		req.Private = x.r.policy(tool) != PolicyAlways
	}
	if !x.emit(Event{Kind: EventApprovalNeeded, Approval: req}) {
		return InterruptedResult, approvalRefused
	}
	d, err := caller.Approve.Approve(ctx, *req)
	if err != nil {
		if ctx.Err() != nil {
			return "", approvalPending
		}
		return "approval failed: " + err.Error(), approvalRefused
	}
	x.emit(Event{Kind: EventApprovalDecided, Approval: req, Decision: &d})
	if d.Summary == "" {
		d.Summary = req.Summary
	}
	return x.granted(tool, call, caller, d)
}

// granted is what d lets call do: run, unless an Inspector's call no
// longer reads as what was approved (its script changed since).
func (x *run) granted(tool Tool, call llm.ToolCall, caller Caller, d Decision) (string, approvalVerdict) {
	text, v := verdict(d)
	in, ok := tool.(Inspector)
	if v != approvalGranted || !ok || d.Summary == "" {
		return text, v
	}
	if now, _ := in.Inspect(caller, call.Arguments); now != d.Summary {
		return "refused: what this call runs changed after it was approved (a file it runs was rewritten); " +
			"ask for approval again if it should still run. Approved:\n" + d.Summary + "\nNow:\n" + now, approvalRefused
	}
	return text, v
}

// verdict is what the model is told about a decision.
func verdict(d Decision) (string, approvalVerdict) {
	switch {
	case d.Expired:
		return "approval expired: no one decided in time", approvalRefused
	case !d.Approved:
		return "denied by " + orUnknown(d.By), approvalRefused
	}
	return "", approvalGranted
}

func (x *run) execute(ctx context.Context, t Tool, c Caller, args json.RawMessage) (out string, imgs []llm.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s crashed: %v", t.Name(), p)
			// The stack is for operators, not for the model.
			x.r.logger().Error("tool panicked", "tool", t.Name(), "panic", p, "stack", string(debug.Stack()))
		}
	}()
	if it, ok := t.(ImageResults); ok {
		return it.ExecuteImages(ctx, c, args)
	}
	out, err = t.Execute(ctx, c, args)
	return out, nil, err
}

func (r *Runner) maxResultChars() int {
	if r.MaxResultChars > 0 {
		return r.MaxResultChars
	}
	return 16000
}

// truncate keeps the head of s within max runes and says how much was cut.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut := 0
	for i := range s {
		if cut == max {
			return fmt.Sprintf("%s\n[… truncated %d characters]", s[:i], utf8.RuneCountInString(s[i:]))
		}
		cut++
	}
	return s
}
