package main

import (
	"fmt"
	"slices"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// agents are the configured agents (agents.<name>, docs/agents.md), each
// a runner of its own over the tools of list it may use, and the bindings
// that choose among them. The default agent's runner is def, built from
// the top-level settings.
func (a *app) agents(def *agent.Runner, list []agent.Tool, tasks *taskParts) (*bot.Agents, error) {
	cfg := a.cfg
	var out []bot.Agent
	for _, name := range cfg.AgentNames() {
		s := cfg.Agent(name)
		ag := bot.Agent{Name: name, Runner: def, Model: s.Model, Fallback: s.Fallback, Budget: s.Budget.Monthly, Limits: agentLimits(cfg.Limits, s.Limits)}
		if name != config.DefaultAgent {
			ag.KB, ag.NoLearning = s.KBScopes(), !s.Evolves()
			r, err := a.agentRunner(name, s, list, tasks)
			if err != nil {
				return nil, fmt.Errorf("agents.%s: %w", name, err)
			}
			ag.Runner = r
		}
		if err := a.switchRunners(&ag, name, s, list, tasks); err != nil {
			return nil, err
		}
		out = append(out, ag)
	}
	var bindings []bot.Binding
	for _, b := range cfg.Bindings {
		place, err := chat.ParsePlaceSet(b.Place) // Load checked it
		if err != nil {
			return nil, err
		}
		bindings = append(bindings, bot.Binding{Place: place, Agent: b.Agent})
	}
	return bot.NewAgents(out, bindings)
}

// agentLimits are the limits a person is held to where an agent answers:
// top's, with the agent's rate, tokens and cost (Config.Agent filled them
// in).
func agentLimits(top config.Limits, own *config.AgentLimits) *bot.Limits {
	l := bot.Limits(top)
	l.TurnsPerMinute, l.DailyTokens, l.DailyCost = *own.TurnsPerMinute, *own.DailyTokens, *own.DailyCost
	return &l
}

// switchRunners gives ag a runner for each model a conversation may
// switch to (/model): the agent's, calling that model first, then the
// agent's fallbacks.
func (a *app) switchRunners(ag *bot.Agent, name string, s config.AgentSettings, list []agent.Tool, tasks *taskParts) error {
	key := "agents." + name + ".models"
	if name == config.DefaultAgent {
		key = "llm.switchable"
	}
	for _, m := range s.Models {
		sw := s
		sw.Model = m
		sw.Fallback = slices.DeleteFunc(slices.Clone(s.Fallback), func(f string) bool { return f == m })
		r, err := a.agentRunner(name, sw, list, tasks)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", key, m, err)
		}
		if ag.Switch == nil {
			ag.Switch = map[string]*agent.Runner{}
		}
		ag.Switch[m] = r
	}
	return nil
}

// agentRunner is agent name's harness: the default's with its persona,
// model and fallbacks, thinking, steps, and the tools its list allows.
func (a *app) agentRunner(name string, s config.AgentSettings, list []agent.Tool, tasks *taskParts) (*agent.Runner, error) {
	provider, err := a.agentModel(s)
	if err != nil {
		return nil, err
	}
	r := a.runnerConfig(switchedTools(allowedTools(list, s.Tools, func(missing string) {
		a.logger.Warn("an agent's tool is not there (its MCP server did not start?)", "agent", name, "tool", missing)
	}), s), tasks)
	r.Provider, r.ContextWindow = provider, a.reg.Info(s.Model).ContextWindow
	r.Blind = !modelSees(a.cfg, a.blind)(s.Model)
	r.Persona, r.Reasoning, r.MaxSteps = s.Persona, s.Reasoning(), s.MaxSteps
	r.NoMemory = !s.Remembers()
	if !s.Evolves() {
		r.Skills = nil
	}
	return agent.NewRunner(r)
}

// switchedTools are the tools of list the agent's switches leave on
// (config.AgentSettings.ToolsOff).
func switchedTools(list []agent.Tool, s config.AgentSettings) []agent.Tool {
	off := s.ToolsOff()
	return slices.DeleteFunc(slices.Clone(list), func(t agent.Tool) bool { return slices.Contains(off, t.Name()) })
}

// agentModel is the provider an agent's turns talk to: its model, or with
// fallbacks the chain behind their circuit breakers, as chatModel builds
// the default's.
func (a *app) agentModel(s config.AgentSettings) (llm.Provider, error) {
	var p llm.Provider
	var err error
	if len(s.Fallback) == 0 {
		p, err = a.reg.Resolve(s.Model)
	} else {
		p, err = a.reg.Fallback(s.Chain(), llm.FallbackOptions{
			Cooldown: a.cfg.LLM.FallbackCooldown(), Sees: modelSees(a.cfg, a.blind), Logger: a.logger,
		})
	}
	if err != nil {
		return nil, err
	}
	return a.ops.provider(p), nil
}

// allowedTools are the tools of list that allow names (nil: all of them),
// in list's order; each allowed name with no tool is told to missing.
func allowedTools(list []agent.Tool, allow []string, missing func(string)) []agent.Tool {
	if allow == nil {
		return list
	}
	var out []agent.Tool
	found := map[string]bool{}
	for _, t := range list {
		if name := t.Name(); slices.Contains(allow, name) {
			out = append(out, t)
			found[name] = true
		}
	}
	for _, name := range allow {
		if !found[name] {
			missing(name)
		}
	}
	return out
}
