package bot

import (
	"context"
	"encoding/json"
)

// A turn keeps the agent it started with to its end, and a crash does
// not end it: the agent is kept in the KV store by session when a turn
// starts, and a turn that continues one (a message a crash interrupted,
// an approval decided with no turn waiting) runs with that agent, not
// with whatever the bindings say by then.

// turnAgentKey is where the agent of session sid's latest turn is kept.
func turnAgentKey(sid string) string { return "turn-agent:" + sid }

// startedWith is what turnAgentKey holds: the inbox key of the turn and
// the agent it started with.
type startedWith struct {
	Key   string `json:"key"`
	Agent string `json:"agent"`
}

// turnAgent is the agent of the turn answering key in session sid at w.
// A turn that continues the session's latest (resume) or that began
// before (the same key: a crash came before its first answer) takes the
// agent that turn started with; one that agent is no longer configured
// for is resolved afresh, and said so. A new turn resolves its agent
// and records it.
func (r *Router) turnAgent(ctx context.Context, w Where, sid, key string, resume bool) *Agent {
	if r.cfg.Agents == nil || len(r.cfg.Agents.byName) == 1 {
		return r.agentFor(ctx, w, sid) // the default alone: nothing to remember
	}
	raw, ok, err := r.cfg.KV.Get(ctx, turnAgentKey(sid))
	var was startedWith
	switch {
	case err != nil:
		r.log.Warn("read the agent a turn started with", "session", sid, "err", err)
	case ok && json.Unmarshal([]byte(raw), &was) == nil && (resume || was.Key == key):
		if ag := r.cfg.Agents.Named(was.Agent); ag != nil {
			return r.switchedIn(ctx, ag, sid)
		}
		r.log.Warn("the agent a turn started with is no longer configured: resolving it afresh", "session", sid, "key", key, "agent", was.Agent)
	}
	ag := r.agentFor(ctx, w, sid)
	b, _ := json.Marshal(startedWith{Key: key, Agent: ag.Name})
	if err := r.cfg.KV.Set(ctx, turnAgentKey(sid), string(b)); err != nil {
		// The turn runs; only a crash in it would meet today's bindings.
		r.log.Warn("record the agent a turn started with", "session", sid, "err", err)
	}
	return ag
}
