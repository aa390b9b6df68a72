package bot

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// Agents bound to places (docs/agents.md): which agent answers a
// conversation is decided here, from where it is (Where), and nowhere
// else. A turn asks once, at its start, and keeps the answer.

// DefaultAgent is the name of the agent the top-level settings configure.
const DefaultAgent = "default"

// Agent is one configured agent as the router runs it.
type Agent struct {
	Name   string
	Runner *agent.Runner
	// Model is the model it calls first; Fallback those it falls back on.
	Model    string
	Fallback []string
	// Switch are the models a conversation may switch to with /model,
	// each with the runner that calls it first, then Fallback.
	Switch map[string]*agent.Runner
	// Switched: a conversation's /model chose Model, not the agent's.
	Switched bool
	// Budget is what its turns may cost per UTC month, in US dollars; 0:
	// no bound (costs_limits.go).
	Budget float64
	// Limits, when set, are the TurnsPerMinute, DailyTokens and DailyCost
	// a person is held to where it answers, in place of the router's
	// (RouterConfig.Limits); its other fields are not read. What they are
	// held against stays the person's: their tokens and cost today, with
	// whichever agent.
	Limits *Limits
	// KB are the scopes its kb_search covers, of those visible where it
	// answers, by kind or key (Where.SearchedKeys); nil, all of them.
	KB []string
	// NoLearning: learning from use is off for it (evolution: false):
	// its runs are not recorded for reflection; its runner lists no
	// skills and has no skill_read.
	NoLearning bool
}

// Named is the agent called name, or nil.
func (a *Agents) Named(name string) *Agent {
	if a == nil {
		return nil
	}
	return a.byName[name]
}

// ToolNames are the names of the tools the agent is offered.
func (a *Agent) ToolNames() []string {
	names := make([]string, 0, len(a.Runner.Tools))
	for _, t := range a.Runner.Tools {
		names = append(names, t.Name())
	}
	return names
}

// Binding binds a place to an agent (bindings: in the configuration).
type Binding struct {
	Place chat.PlaceSet
	Agent string
	// Stored: an admin made it in chat (/agent use), not the configuration.
	Stored bool
}

// Agents are the configured agents and the bindings that choose among
// them. The zero value, or nil, has none: every conversation gets the
// router's Runner.
type Agents struct {
	byName   map[string]*Agent
	bindings []Binding // most specific first
}

// NewAgents checks agents (one of them DefaultAgent) and bindings: every
// binding names an agent there is, no place is bound twice.
func NewAgents(agents []Agent, bindings []Binding) (*Agents, error) {
	a := &Agents{byName: map[string]*Agent{}}
	for i := range agents {
		ag := &agents[i]
		if ag.Runner == nil {
			return nil, fmt.Errorf("agent %q has no runner", ag.Name)
		}
		if a.byName[ag.Name] != nil {
			return nil, fmt.Errorf("agent %q twice", ag.Name)
		}
		a.byName[ag.Name] = ag
	}
	if a.byName[DefaultAgent] == nil {
		return nil, fmt.Errorf("no agent %q", DefaultAgent)
	}
	seen := map[chat.PlaceSet]bool{}
	for _, b := range bindings {
		if a.byName[b.Agent] == nil {
			return nil, fmt.Errorf("binding %s: no agent %q", b.Place, b.Agent)
		}
		if seen[b.Place] {
			return nil, fmt.Errorf("binding %s: the place is bound twice", b.Place)
		}
		seen[b.Place] = true
		a.bindings = append(a.bindings, b)
	}
	// Most specific first, whatever the order written.
	slices.SortStableFunc(a.bindings, func(x, y Binding) int { return cmp.Compare(y.Place.Kind, x.Place.Kind) })
	return a, nil
}

// Resolve is the agent that answers at w and the binding that chose it;
// ok is false when none did and the agent is the default. stored are the
// bindings admins made in chat: of two places equally specific, the
// stored one wins; one naming an agent there is not is passed over.
func (a *Agents) Resolve(w Where, stored ...Binding) (ag *Agent, by Binding, ok bool) {
	var best *Binding
	for i, b := range stored {
		if a.byName[b.Agent] != nil && b.Place.Matches(w.Thread, w.Direct) && (best == nil || b.Place.Kind > best.Place.Kind) {
			best = &stored[i]
		}
	}
	for i, b := range a.bindings { // most specific first
		if b.Place.Matches(w.Thread, w.Direct) {
			if best == nil || b.Place.Kind > best.Place.Kind {
				best = &a.bindings[i]
			}
			break
		}
	}
	if best == nil {
		return a.byName[DefaultAgent], Binding{}, false
	}
	return a.byName[best.Agent], *best, true
}

// budgets are the agents' monthly budgets in nanodollars, by name; nil
// Agents have none.
func (a *Agents) budgets() map[string]int64 {
	if a == nil {
		return nil
	}
	out := map[string]int64{}
	for name, ag := range a.byName {
		if ag.Budget > 0 {
			out[name] = Nanos(ag.Budget)
		}
	}
	return out
}

// limits are the limits that hold where ag answers: def, with ag's own
// rate, tokens and cost if it has them. A nil ag is the default's.
func (ag *Agent) limits(def Limits) Limits {
	if ag == nil || ag.Limits == nil {
		return def
	}
	def.TurnsPerMinute, def.DailyTokens, def.DailyCost = ag.Limits.TurnsPerMinute, ag.Limits.DailyTokens, ag.Limits.DailyCost
	return def
}

// dailyTokens reports whether an agent holds people to a daily token
// budget: then everyone's tokens are counted, whichever agent they went
// to, as the top-level budget counts them.
func (a *Agents) dailyTokens() bool {
	if a == nil {
		return false
	}
	for _, ag := range a.byName {
		if ag.Limits != nil && ag.Limits.DailyTokens > 0 {
			return true
		}
	}
	return false
}

// Names are the agents' names, default first.
func (a *Agents) Names() []string {
	names := slices.Sorted(maps.Keys(a.byName))
	return append([]string{DefaultAgent}, slices.DeleteFunc(names, func(n string) bool { return n == DefaultAgent })...)
}

// agentAt is the agent that answers at w, the bindings admins stored
// included: without agents configured, one made of the router's Runner
// and Model. A store that fails leaves the configured bindings to decide.
func (r *Router) agentAt(ctx context.Context, w Where) (ag *Agent, by Binding, ok bool) {
	if r.cfg.Agents == nil {
		return &Agent{Name: DefaultAgent, Runner: r.cfg.Runner, Model: r.cfg.Model}, Binding{}, false
	}
	stored, err := r.storedBindings(ctx)
	if err != nil {
		r.log.Warn("read the stored bindings", "err", err)
	}
	return r.cfg.Agents.Resolve(w, stored...)
}
