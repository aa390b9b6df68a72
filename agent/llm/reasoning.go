package llm

import (
	"fmt"
	"strconv"
	"strings"
)

// Reasoning asks a model to think before it answers. Each provider reads
// its own half: Anthropic's extended thinking takes Budget tokens, OpenAI's
// reasoning models take an Effort. ParseReasoning fills both from one
// setting, so a turn that falls back to the other provider thinks about as
// much.
type Reasoning struct {
	Budget int    // tokens of thinking, at least MinReasoningBudget
	Effort string // "low", "medium" or "high"
}

// On reports whether r asks for any thinking.
func (r Reasoning) On() bool { return r.Budget > 0 || r.Effort != "" }

// MinReasoningBudget is the smallest thinking budget Anthropic accepts.
const MinReasoningBudget = 1024

// reasoningLevels are the budgets the three effort levels stand for.
var reasoningLevels = []struct {
	effort string
	budget int
}{{"low", 2048}, {"medium", 8192}, {"high", 24576}}

// ParseReasoning reads the llm.thinking setting: "off" or "" (none), an
// effort level (low, medium, high) or a token budget (at least 1024).
func ParseReasoning(s string) (Reasoning, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "off", "false", "no":
		return Reasoning{}, nil
	}
	for _, l := range reasoningLevels {
		if s == l.effort {
			return Reasoning{Budget: l.budget, Effort: l.effort}, nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return Reasoning{}, fmt.Errorf("%q is not valid; want off, low, medium, high or a token budget", s)
	}
	if n < MinReasoningBudget {
		return Reasoning{}, fmt.Errorf("a budget of %d tokens is too small; want at least %d", n, MinReasoningBudget)
	}
	// The effort whose budget is nearest from below stands for n.
	effort := reasoningLevels[0].effort
	for _, l := range reasoningLevels {
		if n >= l.budget {
			effort = l.effort
		}
	}
	return Reasoning{Budget: n, Effort: effort}, nil
}
