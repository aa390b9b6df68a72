package evolve

import (
	"cmp"
	"errors"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
)

// Reflection costs model calls, so a cycle has a budget — calls, tokens
// (input and output) and wall time — on top of each reflection's own
// MaxCalls. A cycle that spends it stops; the scopes it did not reach
// wait for the next cycle, and one cut short keeps what it saved.

// Budget bounds one reflection cycle (evolution.cycle_* keys).
type Budget struct {
	Calls  int           // model calls (default 30)
	Tokens int           // input and output tokens (default 300,000)
	Time   time.Duration // wall time (default 10 min)
}

func (b Budget) withDefaults() Budget {
	b.Calls = cmp.Or(b.Calls, 30)
	b.Tokens = cmp.Or(b.Tokens, 300_000)
	b.Time = cmp.Or(b.Time, 10*time.Minute)
	return b
}

// ErrBudget says a reflection stopped because its cycle's budget was
// spent.
var ErrBudget = errors.New("the reflection cycle's budget is spent")

// Allowance is what is left of a cycle's budget. Its zero value allows
// nothing; NewAllowance starts one.
type Allowance struct {
	calls, tokens int
	deadline      time.Time
	// Spent counts what the cycle used.
	Calls, Tokens int
}

// NewAllowance is b's allowance for a cycle starting at now.
func NewAllowance(b Budget, now time.Time) *Allowance {
	b = b.withDefaults()
	return &Allowance{calls: b.Calls, tokens: b.Tokens, deadline: now.Add(b.Time)}
}

// Left reports whether another model call fits at now.
func (a *Allowance) Left(now time.Time) bool {
	return a.Calls < a.calls && a.Tokens < a.tokens && now.Before(a.deadline)
}

// spend counts one model call of req answered by resp; a provider that
// reports no usage is counted by estimate.
func (a *Allowance) spend(req llm.Request, resp llm.Response) {
	a.Calls++
	in, out := resp.Usage.InputTokens, resp.Usage.OutputTokens
	if in == 0 {
		in = agent.EstimateTokens(req.System)
		for _, m := range req.Messages {
			in += agent.EstimateTokens(m.Text)
		}
	}
	if out == 0 {
		out = agent.EstimateTokens(resp.Text)
		for _, c := range resp.ToolCalls {
			out += agent.EstimateTokens(string(c.Arguments))
		}
	}
	a.Tokens += in + out
}
