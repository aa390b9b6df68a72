package bot

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
)

// Switching the model of a conversation (/model, docs/agents.md): the
// agent's list of models (agents.<a>.models, llm.switchable) is all that
// may be chosen; the choice is kept in the KV store by session, so it
// outlives restarts and goes with /new. A turn resolves its agent and
// model once, at its start, and keeps them.

// modelKey is where the model chosen for session sid is kept.
func modelKey(sid string) string { return "model:" + sid }

// agentFor is the agent that answers session sid at w, switched to the
// model /model chose there if the agent still allows it.
func (r *Router) agentFor(ctx context.Context, w Where, sid string) *Agent {
	ag, _, _ := r.agentAt(ctx, w)
	return r.switchedIn(ctx, ag, sid)
}

// switchedIn is ag switched to the model /model chose in session sid, if
// ag still allows it.
func (r *Router) switchedIn(ctx context.Context, ag *Agent, sid string) *Agent {
	if sid == "" || len(ag.Switch) == 0 {
		return ag
	}
	name, ok, err := r.cfg.KV.Get(ctx, modelKey(sid))
	if err != nil {
		r.log.Warn("read the conversation's model", "session", sid, "err", err)
		return ag
	}
	return ag.switched(name, ok)
}

// switched is ag answering with model name, or ag if it may not.
func (ag *Agent) switched(name string, ok bool) *Agent {
	run := ag.Switch[name]
	if !ok || run == nil || name == ag.Model && !ag.Switched {
		return ag
	}
	s := *ag
	s.Runner, s.Model, s.Switched = run, name, true
	s.Fallback = slices.DeleteFunc(slices.Clone(ag.Fallback), func(m string) bool { return m == name })
	return &s
}

// mayModel reports whether c's caller may switch the model of session
// sid: the person in a direct chat; in a shared place an admin or the
// person who started the conversation.
func (r *Router) mayModel(ctx context.Context, c chat.Command, sid string) (bool, error) {
	if c.Direct || r.cfg.Access.IsAdmin(c.User) {
		return true, nil
	}
	starter, ok, err := r.cfg.KV.Get(ctx, StarterKey(sid))
	return ok && starter == c.User.Key(), err
}

const msgModelNotYours = "Only the person who started this conversation or an admin can switch its model."

// cmdModel answers /model: the conversation's model and those it may
// switch to; /model NAME (or /model use NAME) switches it, /model reset
// goes back to the agent's.
func (r *Router) cmdModel(ctx context.Context, c chat.Command) error {
	w := Where{Thread: c.Thread, User: c.User, Direct: c.Direct}
	args := c.Args
	if len(args) > 0 && strings.EqualFold(args[0], "use") {
		args = args[1:]
		if len(args) == 0 {
			return r.answerPrivately(ctx, c, chat.Out{Text: "Usage: /model, /model NAME, /model reset"})
		}
	}
	sid, bound, err := r.cfg.Sessions.BoundSession(ctx, c.Thread)
	if err != nil {
		return err
	}
	if !bound {
		sid = ""
	}
	if len(args) == 0 || len(args) == 1 && strings.EqualFold(args[0], "show") {
		return r.answerPrivately(ctx, c, chat.Out{Text: r.modelText(ctx, w, sid)})
	}
	if len(args) != 1 {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Usage: /model, /model NAME, /model reset"})
	}
	if !bound {
		return r.answerPrivately(ctx, c, chat.Out{Text: "No conversation here yet: write to me first, then switch its model.\n" + r.modelText(ctx, w, "")})
	}
	may, err := r.mayModel(ctx, c, sid)
	if err != nil {
		return err
	}
	if !may {
		return r.answerPrivately(ctx, c, chat.Out{Text: msgModelNotYours})
	}
	if strings.EqualFold(args[0], "reset") {
		if err := r.cfg.KV.Set(ctx, modelKey(sid), ""); err != nil {
			return fmt.Errorf("forget the conversation's model: %w", err)
		}
		return r.answerPrivately(ctx, c, chat.Out{Text: "Back to the agent's model from the next answer on.\n" + r.modelText(ctx, w, sid)})
	}
	ag, _, _ := r.agentAt(ctx, w)
	name := args[0]
	if ag.Switch[name] == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("%q is not a model this conversation may switch to.\n", name) + r.modelText(ctx, w, sid)})
	}
	if err := r.cfg.KV.Set(ctx, modelKey(sid), name); err != nil {
		return fmt.Errorf("record the conversation's model: %w", err)
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("This conversation is answered by %s from the next answer on (/model reset goes back).\n", name) + r.modelText(ctx, w, sid)})
}

// modelText is /model's answer at w for session sid ("" none yet).
func (r *Router) modelText(ctx context.Context, w Where, sid string) string {
	ag := r.agentFor(ctx, w, sid)
	var b strings.Builder
	if ag.Model != "" {
		fmt.Fprintf(&b, "Model: %s", ag.Model)
		if ag.Switched {
			b.WriteString(" (switched with /model)")
		}
		b.WriteString("\n")
	}
	if names := slices.Sorted(maps.Keys(ag.Switch)); len(names) > 0 {
		fmt.Fprintf(&b, "May switch to: %s", strings.Join(names, ", "))
	} else {
		b.WriteString("No other model may be chosen here.")
	}
	return b.String()
}
