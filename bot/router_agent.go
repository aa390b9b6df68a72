package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
)

// cmdAgent answers /agent: which agent answers here, why (the binding
// that chose it, or none: the default), its model and its tools. Admins
// may bind this channel or chat to an agent (/agent use NAME) and undo it
// (/agent reset).
func (r *Router) cmdAgent(ctx context.Context, c chat.Command) error {
	w := Where{Thread: c.Thread, User: c.User, Direct: c.Direct}
	if len(c.Args) == 0 || strings.EqualFold(c.Args[0], "show") {
		return r.answerPrivately(ctx, c, chat.Out{Text: r.agentText(ctx, w)})
	}
	sub := strings.ToLower(c.Args[0])
	if (sub != "use" || len(c.Args) != 2) && (sub != "reset" || len(c.Args) != 1) {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Usage: /agent, /agent use NAME, /agent reset"})
	}
	if !r.cfg.Access.IsAdmin(c.User) {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Only an admin can choose the agent of a place."})
	}
	place := chat.ChannelOf(c.Thread)
	if sub == "reset" {
		if err := r.storeBinding(ctx, place, ""); err != nil {
			return err
		}
		r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: "agent.unbind", Target: place.String(), Via: "chat"})
		return r.answerPrivately(ctx, c, chat.Out{Text: "The binding made here is gone.\n" + r.agentText(ctx, w)})
	}
	names := []string{DefaultAgent}
	if r.cfg.Agents != nil {
		names = r.cfg.Agents.Names()
	}
	name := strings.ToLower(c.Args[1])
	if !slices.Contains(names, name) {
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("There is no agent %q; the agents are %s.", name, strings.Join(names, ", "))})
	}
	if err := r.storeBinding(ctx, place, name); err != nil {
		return err
	}
	r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: "agent.bind", Target: place.String(), Detail: name, Via: "chat"})
	return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("%s is bound to %s from the next answer on.\n", place, name) + r.agentText(ctx, w)})
}

// agentText is /agent's answer at w.
func (r *Router) agentText(ctx context.Context, w Where) string {
	ag, by, ok := r.agentAt(ctx, w)
	var b strings.Builder
	fmt.Fprintf(&b, "Agent: %s\n", ag.Name)
	switch {
	case ok && by.Stored:
		fmt.Fprintf(&b, "Why: bound here by %s, with /agent use\n", by.Place)
	case ok:
		fmt.Fprintf(&b, "Why: bound here by %s\n", by.Place)
	default:
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
