package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/lazyre"
)

// Agents bound to places (docs/agents.md): agents.<name> configures an
// agent, whose unset fields inherit the top-level settings (which are the
// agent named default); bindings choose, per place, which agent answers.

// DefaultAgent is the agent the top-level settings configure.
const DefaultAgent = "default"

// Agents are the named agents (agents.<name>). In the file a mapping of
// names to mappings; in the environment (PARLEY_AGENTS) the same as JSON.
type Agents map[string]AgentSettings

// AgentSettings is one agent; each unset field is the top-level one's.
type AgentSettings struct {
	// Persona replaces llm.persona.
	Persona string `json:"persona"`
	// Model and Fallback replace llm.model and llm.fallback; an empty
	// list (fallback: []) falls back on nothing.
	Model    string   `json:"model"`
	Fallback []string `json:"fallback"`
	// Models are those a conversation may switch to with /model; unset,
	// llm.switchable; empty (models: []), none.
	Models []string `json:"models"`
	// Tools is the allow list of the tools offered, by name; unset, every
	// tool the configuration enables; empty (tools: []), none.
	Tools []string `json:"tools"`
	// Thinking replaces llm.thinking.
	Thinking string `json:"thinking"`
	// MaxSteps bounds the model calls of a turn; 0 the default (25).
	MaxSteps int `json:"max_steps"`
	// Budget bounds what the agent's turns cost a month; unset, the
	// top-level budget, counted for this agent alone.
	Budget *Budget `json:"budget"`
	// Limits are the thresholds limits.turns_per_minute, daily_tokens and
	// daily_cost apply where this agent answers; each unset is the
	// top-level one. What they count stays the person's, whichever agent
	// it was spent with.
	Limits *AgentLimits `json:"limits"`

	// The agent's switches (docs/agents.md#switches): each nil is the top
	// level's, which Config.Agent fills in; a switch only turns off what
	// the configuration turns on.
	//
	// KB narrows the documents its kb_search searches.
	KB *AgentKB `json:"kb"`
	// Evolution is learning from use: skill_read, the skill index in the
	// prompt, the turn's run recorded for reflection; unset,
	// evolution.enabled.
	Evolution *bool `json:"evolution"`
	// Memory is the memory tool and the person's memory in the prompt;
	// unset, on. /memory works whatever it says: the memory is the
	// person's.
	Memory *bool `json:"memory"`
	// Reminders are the remind and schedule tools; unset,
	// reminders.enabled.
	Reminders *bool `json:"reminders"`
}

// AgentKB is an agent's knowledge base (agents.<name>.kb).
type AgentKB struct {
	// Scopes are the scopes of those visible where a turn runs that its
	// kb_search searches, each a kind (operator, space, person) or one
	// scope's key (space:slack:T012); unset, every visible one; empty,
	// none (and no kb_search). They only narrow: a scope the person
	// could not see there stays unsearched whatever is listed.
	Scopes []string `json:"scopes"`
}

// AgentLimits are an agent's limits (agents.<name>.limits); each nil is
// limits.*'s, and 0 is no limit, as there.
type AgentLimits struct {
	TurnsPerMinute *int     `json:"turns_per_minute"`
	DailyTokens    *int     `json:"daily_tokens"`
	DailyCost      *float64 `json:"daily_cost"`
}

// KBScopes are the agent's kb.scopes: nil, every visible scope.
func (a AgentSettings) KBScopes() []string {
	if a.KB == nil {
		return nil
	}
	return a.KB.Scopes
}

// Evolves, Remembers and Reminds read the switches; unset is on (the
// agent Config.Agent returns has each set).
func (a AgentSettings) Evolves() bool   { return on(a.Evolution) }
func (a AgentSettings) Remembers() bool { return on(a.Memory) }
func (a AgentSettings) Reminds() bool   { return on(a.Reminders) }

func on(b *bool) bool { return b == nil || *b }

// Binding binds a place to an agent (bindings[i]).
type Binding struct {
	// Place is one of chat.PlaceForms: slack:channel:C0123, telegram:dm, *.
	Place string `json:"place"`
	// Agent is an agent's name, or default.
	Agent string `json:"agent"`
}

var agentName = lazyre.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// AgentNames are the agents' names, default first, the others sorted.
func (c *Config) AgentNames() []string {
	names := slices.Sorted(maps.Keys(c.Agents))
	return append([]string{DefaultAgent}, slices.DeleteFunc(names, func(n string) bool { return n == DefaultAgent })...)
}

// Agent is the agent name with what it leaves unset filled from the
// top-level settings: persona, model, fallback and thinking from llm.*,
// Tools nil for every tool. A fallback equal to the agent's model is
// dropped.
func (c *Config) Agent(name string) AgentSettings {
	a := c.Agents[name]
	if name == DefaultAgent {
		a = AgentSettings{}
	}
	if a.Persona == "" {
		a.Persona = c.LLM.Persona
	}
	if a.Model == "" {
		a.Model = c.LLM.Model
	}
	if a.Fallback == nil {
		a.Fallback = slices.DeleteFunc(slices.Clone(c.LLM.Fallback), func(m string) bool { return m == a.Model })
	}
	if a.Models == nil {
		a.Models = c.LLM.Switchable
	}
	if a.Thinking == "" {
		a.Thinking = c.LLM.Thinking
	}
	if a.Budget == nil {
		a.Budget = &Budget{Monthly: c.Budget.Monthly}
	}
	a.Limits = c.agentLimits(a.Limits)
	if a.Evolution == nil {
		a.Evolution = new(c.Evolution.Enabled)
	}
	if a.Memory == nil {
		a.Memory = new(true)
	}
	if a.Reminders == nil {
		a.Reminders = new(c.Reminders.Enabled)
	}
	return a
}

// agentLimits are set with each unset one filled from limits.*: a copy,
// so that the configuration's own stays as written.
func (c *Config) agentLimits(set *AgentLimits) *AgentLimits {
	l := AgentLimits{}
	if set != nil {
		l = *set
	}
	if l.TurnsPerMinute == nil {
		l.TurnsPerMinute = new(c.Limits.TurnsPerMinute)
	}
	if l.DailyTokens == nil {
		l.DailyTokens = new(c.Limits.DailyTokens)
	}
	if l.DailyCost == nil {
		l.DailyCost = new(c.Limits.DailyCost)
	}
	return &l
}

// Reasoning is the agent's thinking as the runner takes it; Load has
// checked it.
func (a AgentSettings) Reasoning() llm.Reasoning {
	r, _ := llm.ParseReasoning(a.Thinking)
	return r
}

// Chain is the agent's model and its fallbacks.
func (a AgentSettings) Chain() []string {
	if a.Model == "" {
		return nil
	}
	return append([]string{a.Model}, a.Fallback...)
}

// ToolNames are the built-in tools the configuration enables, by name:
// what an agent's tools may list, besides an MCP server's
// (<server>__<tool>).
func (c *Config) ToolNames() []string {
	names := []string{"memory", "kb_search", "history_search"}
	if c.Tools.WebFetch.Enabled {
		names = append(names, "web_fetch")
	}
	if c.Tools.WebSearch.Enabled() {
		names = append(names, "web_search")
	}
	if c.Tools.Shell.Enabled {
		names = append(names, "shell")
	}
	if c.Evolution.Enabled {
		names = append(names, "skill_read")
	}
	if c.Reminders.Enabled {
		names = append(names, "remind", "schedule")
	}
	if c.Tasks.Enabled {
		names = append(names, "todo", "delegate")
	}
	return names
}

// normalizeAgents completes bare model names, as normalize does llm.*.
func (c *Config) normalizeAgents() {
	canonical := func(name string) string {
		if m, err := llm.Canonical(name); err == nil {
			return m
		}
		return name
	}
	for name, a := range c.Agents {
		if a.Model != "" {
			a.Model = canonical(a.Model)
		}
		for i, m := range a.Fallback {
			a.Fallback[i] = canonical(m)
		}
		for i, m := range a.Models {
			a.Models[i] = canonical(m)
		}
		a.Thinking = strings.ToLower(strings.TrimSpace(a.Thinking))
		c.Agents[name] = a
	}
}

// switchableProblems are what is wrong with the models at key (a list
// /model may switch to): each must name a configured provider, once.
func (c *Config) switchableProblems(key string, models []string) []string {
	var p []string
	for i, m := range models {
		switch {
		case modelProblem(m, c.providerProblem) != "":
			p = append(p, fmt.Sprintf("%s[%d]: %s", key, i, modelProblem(m, c.providerProblem)))
		case slices.Index(models, m) < i:
			p = append(p, fmt.Sprintf("%s[%d]: the same model as %s[%d]", key, i, key, slices.Index(models, m)))
		}
	}
	return p
}

// validateAgents checks agents.*, llm.switchable and bindings.
func (c *Config) validateAgents() []string {
	p := c.switchableProblems("llm.switchable", c.LLM.Switchable)
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }
	tools := c.ToolNames()
	var servers []string
	for _, s := range c.Tools.MCP.Servers {
		servers = append(servers, s.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		a, key := c.Agents[name], "agents."+name
		switch {
		case name == DefaultAgent:
			add("agents.default: the default agent is the top-level settings (llm.persona, llm.model, …); give this one another name")
			continue
		case !agentName().MatchString(name):
			add("agents: %q is not a valid name; want a lower-case letter, then up to 31 of a-z 0-9 _ -", name)
			continue
		}
		if a.Model != "" {
			if problem := modelProblem(a.Model, c.providerProblem); problem != "" {
				add("%s.model: %s", key, problem)
			}
		}
		model := c.Agent(name).Model
		for i, m := range a.Fallback {
			switch {
			case modelProblem(m, c.providerProblem) != "":
				add("%s.fallback[%d]: %s", key, i, modelProblem(m, c.providerProblem))
			case m == model:
				add("%s.fallback[%d]: the same model as the agent's model", key, i)
			case slices.Index(a.Fallback, m) < i:
				add("%s.fallback[%d]: the same model as %s.fallback[%d]", key, i, key, slices.Index(a.Fallback, m))
			}
		}
		p = append(p, c.switchableProblems(key+".models", a.Models)...)
		if _, err := llm.ParseReasoning(a.Thinking); err != nil {
			add("%s.thinking: %s", key, err)
		}
		if a.Budget != nil {
			p = append(p, moneyProblem(key+".budget.monthly", a.Budget.Monthly)...)
		}
		if l := a.Limits; l != nil {
			if l.TurnsPerMinute != nil {
				p = append(p, countProblem(key+".limits.turns_per_minute", *l.TurnsPerMinute, maxTurnsPerMinute)...)
			}
			if l.DailyTokens != nil {
				p = append(p, countProblem(key+".limits.daily_tokens", *l.DailyTokens, maxDailyTokens)...)
			}
			if l.DailyCost != nil {
				p = append(p, moneyProblem(key+".limits.daily_cost", *l.DailyCost)...)
			}
		}
		if a.MaxSteps < 0 || a.MaxSteps > 1000 {
			add("%s.max_steps: %d is out of range; want 1 to 1000, or 0 for the default (25)", key, a.MaxSteps)
		}
		p = append(p, c.switchProblems(key, a)...)
		for i, t := range a.Tools {
			server, _, mcp := strings.Cut(t, "__")
			if slices.Contains(tools, t) || mcp && slices.Contains(servers, server) {
				continue
			}
			avail := tools
			if len(servers) > 0 {
				avail = append(slices.Clip(tools), "<server>__<tool> of tools.mcp.servers")
			}
			add("%s.tools[%d]: %q is no tool here; the tools are %s (a tool that is off, such as shell, is turned on under tools.)", key, i, t, orList(avail, "and"))
		}
	}
	bound := map[chat.PlaceSet]int{}
	for i, b := range c.Bindings {
		key := fmt.Sprintf("bindings[%d]", i)
		place, err := chat.ParsePlaceSet(b.Place)
		if err != nil {
			add("%s.place: %q: %s", key, b.Place, err)
		} else if j, ok := bound[place]; ok {
			add("%s.place: %s is bound already by bindings[%d]; bind each place once", key, place, j)
		} else {
			bound[place] = i
		}
		if _, ok := c.Agents[b.Agent]; !ok && b.Agent != DefaultAgent {
			add("%s.agent: %q is no agent; the agents are %s", key, b.Agent, orList(c.AgentNames(), "and"))
		}
	}
	return p
}

// requireAgents reports whether the provider of every model an agent
// names is configured (RequireLLM), and if not, what would fix it.
func (c *Config) requireAgents() error {
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		a := c.Agents[name]
		if a.Model != "" {
			if err := c.requireProvider("agents."+name+".model", a.Model); err != nil {
				return err
			}
		}
		for i, m := range a.Fallback {
			if err := c.requireProvider(fmt.Sprintf("agents.%s.fallback[%d]", name, i), m); err != nil {
				return err
			}
		}
	}
	return nil
}
