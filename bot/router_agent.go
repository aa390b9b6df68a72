package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleybot/parley/chat"
)

// cmdAgent answers /agent: which agent answers here, why (the binding
// that chose it, or none: the default), its model and its tools.
func (r *Router) cmdAgent(ctx context.Context, c chat.Command) error {
	return r.answerPrivately(ctx, c, chat.Out{Text: r.agentText(Where{Thread: c.Thread, User: c.User, Direct: c.Direct})})
}

// agentText is /agent's answer at w.
func (r *Router) agentText(w Where) string {
	ag, by, ok := r.agentAt(w)
	var b strings.Builder
	fmt.Fprintf(&b, "Agent: %s\n", ag.Name)
	if ok {
		fmt.Fprintf(&b, "Why: bound here by %s\n", by.Place)
	} else {
		b.WriteString("Why: no binding covers this place: the default agent\n")
	}
	if ag.Model != "" {
		fmt.Fprintf(&b, "Model: %s", ag.Model)
		if len(ag.Fallback) > 0 {
			fmt.Fprintf(&b, " (then %s)", strings.Join(ag.Fallback, ", "))
		}
		b.WriteString("\n")
	}
	tools := "none"
	if names := ag.ToolNames(); len(names) > 0 {
		tools = strings.Join(names, ", ")
	}
	fmt.Fprintf(&b, "Tools: %s", tools)
	return b.String()
}
