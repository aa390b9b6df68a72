package bot

import (
	"cmp"
	"fmt"
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
}

// ToolNames are the names of the tools the agent is offered.
func (a *Agent) ToolNames() []string {
	names := make([]string, 0, len(a.Runner.Tools))
	for _, t := range a.Runner.Tools {
		names = append(names, t.Spec().Name)
	}
	return names
}

// Binding binds a place to an agent (bindings: in the configuration).
type Binding struct {
	Place chat.PlaceSet
	Agent string
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
// ok is false when none did and the agent is the default.
func (a *Agents) Resolve(w Where) (ag *Agent, by Binding, ok bool) {
	for _, b := range a.bindings {
		if b.Place.Matches(w.Thread, w.Direct) {
			return a.byName[b.Agent], b, true
		}
	}
	return a.byName[DefaultAgent], Binding{}, false
}

// agentAt is the agent that answers at w: without agents configured, one
// made of the router's Runner and Model.
func (r *Router) agentAt(w Where) (ag *Agent, by Binding, ok bool) {
	if r.cfg.Agents == nil {
		return &Agent{Name: DefaultAgent, Runner: r.cfg.Runner, Model: r.cfg.Model}, Binding{}, false
	}
	return r.cfg.Agents.Resolve(w)
}
