package config

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentsBase configures two providers, shell off and web_fetch on, for
// the agents below to name.
const agentsBase = `llm:
  model: hosted/gpt-4.1-mini
  fallback: [local/llama3.2]
  persona: Top-level persona.
  thinking: low
providers:
  hosted: {kind: openai}
  local: {kind: openai, base_url: "http://localhost:11434/v1"}
tools:
  shell: {enabled: false}
  web_fetch: {enabled: true}
  mcp:
    servers: [{name: gh, command: gh-mcp}]
`

func TestAgentsValidation(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, yaml, want string }{
		{"unknown agent in a binding", "bindings: [{place: '*', agent: nobody}]\n", `bindings[0].agent: "nobody" is no agent; the agents are default`},
		{"bad place form", "agents: {a: {}}\nbindings: [{place: 'slack:room:C1', agent: a}]\n", `bindings[0].place: "slack:room:C1": it is no kind of place on slack; want one of slack:channel:<id>`},
		{"no platform", "bindings: [{place: 'irc:channel:x', agent: default}]\n", "bindings[0].place: \"irc:channel:x\": it names no platform"},
		{"bad topic", "bindings: [{place: 'telegram:topic:-100', agent: default}]\n", "a topic is <chat>/<topic>"},
		{"place bound twice", "agents: {a: {}, b: {}}\nbindings: [{place: slack:dm, agent: a}, {place: slack:dm, agent: b}]\n", "bindings[1].place: slack:dm is bound already by bindings[0]"},
		{"unconfigured provider", "agents: {a: {model: nowhere/m1}}\n", `agents.a.model: provider "nowhere" in "nowhere/m1" is not configured; the providers are`},
		{"bad model", "agents: {a: {model: llama}}\n", `agents.a.model: "llama" must be provider/model`},
		{"fallback provider", "agents: {a: {fallback: [nowhere/m1]}}\n", `agents.a.fallback[0]: provider "nowhere"`},
		{"fallback is the model", "agents: {a: {model: local/llama3.2, fallback: [local/llama3.2]}}\n", "agents.a.fallback[0]: the same model as the agent's model"},
		{"fallback twice", "agents: {a: {fallback: [local/x, local/x]}}\n", "agents.a.fallback[1]: the same model as agents.a.fallback[0]"},
		{"switchable model's provider", "agents: {a: {models: [local/x, nowhere/m1]}}\n", `agents.a.models[1]: provider "nowhere" in "nowhere/m1" is not configured`},
		{"switchable model twice", "agents: {a: {models: [local/x, local/x]}}\n", "agents.a.models[1]: the same model as agents.a.models[0]"},
		{"bad switchable model", "agents: {a: {models: [llama]}}\n", `agents.a.models[0]: "llama" must be provider/model`},
		{"unknown tool", "agents: {a: {tools: [memory, shel]}}\n", `agents.a.tools[1]: "shel" is no tool here; the tools are memory, kb_search, history_search, web_fetch, skill_read, remind, schedule, todo, delegate and <server>__<tool> of tools.mcp.servers`},
		{"tool turned off", "agents: {a: {tools: [shell]}}\n", `agents.a.tools[0]: "shell" is no tool here`},
		{"unknown MCP server", "agents: {a: {tools: [jira__search]}}\n", `agents.a.tools[0]: "jira__search" is no tool here`},
		{"thinking", "agents: {a: {thinking: hard}}\n", "agents.a.thinking:"},
		{"max_steps", "agents: {a: {max_steps: 5000}}\n", "agents.a.max_steps: 5000 is out of range"},
		{"turns_per_minute", "agents: {a: {limits: {turns_per_minute: -1}}}\n", "agents.a.limits.turns_per_minute: -1 is out of range; want 0 (no limit) to 10000"},
		{"daily_tokens", "agents: {a: {limits: {daily_tokens: 2000000000}}}\n", "agents.a.limits.daily_tokens: 2000000000 is out of range; want 0 (no limit) to 1000000000"},
		{"daily_cost", "agents: {a: {limits: {daily_cost: -0.5}}}\n", "agents.a.limits.daily_cost: -0.5 is out of range; want 0 (no limit) to 1000000 US dollars"},
		{"unknown limit", "agents: {a: {limits: {daily_costs: 1}}}\n", "agents.a.limits.daily_costs: unknown key; did you mean daily_cost?"},
		{"a limit the top level has alone", "agents: {a: {limits: {queue_messages: 1}}}\n", "agents.a.limits.queue_messages: unknown key"},
		{"default redefined", "agents: {default: {persona: x}}\n", "agents.default: the default agent is the top-level settings"},
		{"bad name", "agents: {Support: {}}\n", `agents: "Support" is not a valid name`},
		{"unknown field", "agents: {a: {modle: local/x}}\n", "agents.a.modle: unknown key; did you mean model?"},
		{"unknown switch", "agents: {a: {memroy: false}}\n", "agents.a.memroy: unknown key; did you mean memory?"},
		{"unknown kb key", "agents: {a: {kb: {scope: [operator]}}}\n", "agents.a.kb.scope: unknown key; did you mean scopes?"},
		{"kb scope", "agents: {a: {kb: {scopes: [operator, spaces]}}}\n", `agents.a.kb.scopes[1]: "spaces" is no scope; want operator, space, person`},
		{"kb scope twice", "agents: {a: {kb: {scopes: [space, space]}}}\n", "agents.a.kb.scopes[1]: the same scope as agents.a.kb.scopes[0]"},
		{"switch not a bool", "agents: {a: {memory: maybe}}\n", "agents.a: json: cannot unmarshal"},
		{"evolution on where it is off", "evolution: {enabled: false}\nagents: {a: {evolution: true}}\n", "agents.a.evolution: true needs learning from use on"},
		{"reminders on where they are off", "reminders: {enabled: false}\nagents: {a: {reminders: true}}\n", "agents.a.reminders: true needs reminders on"},
		{"agents not a mapping", "agents: [a]\n", "agents: want a mapping of names to mappings"},
		{"bindings not a list", "bindings: {place: '*'}\n", "bindings: want a list of mappings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadYAML(t, agentsBase+tt.yaml, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestAgentsInherit(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, agentsBase+`budget: {monthly: 50}
limits: {turns_per_minute: 6, daily_cost: 1}
agents:
  support:
    persona: Support persona.
    tools: [memory, kb_search]
  eng:
    model: local/llama3.2
    thinking: HIGH
    max_steps: 60
    budget: {monthly: 20}
    limits: {daily_tokens: 5000, daily_cost: 0}
    tools: [memory, web_fetch, gh__search_issues]
    kb: {scopes: [operator, space:slack:T012]}
    memory: false
    evolution: false
  random:
    model: hosted/gpt-4.1-nano
    fallback: []
    tools: []
    limits: {turns_per_minute: 2}
bindings:
  - {place: "*", agent: random}
  - {place: "slack:channel:C0HELP", agent: support}
  - {place: "telegram:topic:-1001/7", agent: eng}
  - {place: "discord:dm", agent: default}
`, nil)
	if got := cfg.AgentNames(); !slices.Equal(got, []string{"default", "eng", "random", "support"}) {
		t.Errorf("AgentNames() = %v", got)
	}
	// The switches left unset are the top level's: evolution and
	// reminders are on by default, memory always.
	on, off := new(true), new(false)
	// Unset limits are limits.*'s; 0 set is no limit, whatever the top
	// level says.
	limits := func(turns, tokens int, cost float64) *AgentLimits {
		return &AgentLimits{TurnsPerMinute: &turns, DailyTokens: &tokens, DailyCost: &cost}
	}
	top := limits(6, 1_000_000, 1)
	want := map[string]AgentSettings{
		"default": {Persona: "Top-level persona.", Model: "hosted/gpt-4.1-mini", Fallback: []string{"local/llama3.2"}, Thinking: "low",
			Evolution: on, Memory: on, Reminders: on, Budget: &Budget{Monthly: 50}, Limits: top},
		"support": {Persona: "Support persona.", Model: "hosted/gpt-4.1-mini", Fallback: []string{"local/llama3.2"}, Thinking: "low", Tools: []string{"memory", "kb_search"},
			Evolution: on, Memory: on, Reminders: on, Budget: &Budget{Monthly: 50}, Limits: top},
		// The inherited fallback that is the agent's own model is dropped.
		"eng": {Persona: "Top-level persona.", Model: "local/llama3.2", Fallback: []string{}, Thinking: "high", MaxSteps: 60, Tools: []string{"memory", "web_fetch", "gh__search_issues"},
			KB: &AgentKB{Scopes: []string{"operator", "space:slack:T012"}}, Evolution: off, Memory: off, Reminders: on, Budget: &Budget{Monthly: 20}, Limits: limits(6, 5000, 0)},
		"random": {Persona: "Top-level persona.", Model: "hosted/gpt-4.1-nano", Fallback: []string{}, Thinking: "low", Tools: []string{},
			Evolution: on, Memory: on, Reminders: on, Budget: &Budget{Monthly: 50}, Limits: limits(2, 1_000_000, 1)},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, cfg.Agent(name)); diff != "" {
			t.Errorf("Agent(%q) (-want +got):\n%s", name, diff)
		}
	}
	if off := cfg.Agent("eng").ToolsOff(); !slices.Equal(off, []string{"memory", "skill_read"}) {
		t.Errorf("eng's ToolsOff() = %v", off)
	}
	if off := cfg.Agent("support").ToolsOff(); off != nil {
		t.Errorf("support's ToolsOff() = %v", off)
	}
	if len(cfg.Bindings) != 4 || cfg.Bindings[1] != (Binding{Place: "slack:channel:C0HELP", Agent: "support"}) {
		t.Errorf("Bindings = %+v", cfg.Bindings)
	}
}

// TestAgentsFromEnvironment: both keys as JSON in the environment.
func TestAgentsFromEnvironment(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, agentsBase, map[string]string{
		"PARLEY_AGENTS":   `{"support": {"tools": ["memory"], "kb": {"scopes": ["operator"]}, "reminders": false, "memory": true}}`,
		"PARLEY_BINDINGS": `[{"place": "telegram:dm", "agent": "support"}]`,
	})
	if got := cfg.Agent("support").Tools; !slices.Equal(got, []string{"memory"}) || len(cfg.Bindings) != 1 {
		t.Errorf("tools %v, bindings %+v", got, cfg.Bindings)
	}
	if a := cfg.Agent("support"); !slices.Equal(a.KBScopes(), []string{"operator"}) || a.Reminds() || !a.Remembers() || !a.Evolves() {
		t.Errorf("switches: kb %v, reminders %v, memory %v, evolution %v", a.KBScopes(), a.Reminds(), a.Remembers(), a.Evolves())
	}
	_, err := loadYAML(t, agentsBase, map[string]string{"PARLEY_AGENTS": `{"support": {"remnders": false}}`})
	if err == nil || !strings.Contains(err.Error(), "agents.support.remnders: unknown key; did you mean reminders?") {
		t.Errorf("a misspelt key in PARLEY_AGENTS: %v", err)
	}
}

// TestAgentsDocExample loads docs/agents.md's worked example as an
// operator would.
func TestAgentsDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "## A worked example")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("docs/agents.md has no YAML example under ## A worked example")
	}
	cfg := mustLoadYAML(t, example, map[string]string{"OPENAI_API_KEY": "sk-doc-example"})
	if err := cfg.RequireLLM(); err != nil {
		t.Fatal(err)
	}
	if got := cfg.AgentNames(); !slices.Equal(got, []string{"default", "eng", "random", "support"}) {
		t.Errorf("AgentNames() = %v", got)
	}
	if r := cfg.Agent("random"); r.Model != "local/llama3.2" || len(r.Fallback) != 0 || r.Tools == nil || len(r.Tools) != 0 {
		t.Errorf("random = %+v", r)
	}
	if s := cfg.Agent("support"); slices.Contains(s.Tools, "shell") || !strings.Contains(s.Persona, "support desk") ||
		!slices.Equal(s.KBScopes(), []string{"operator"}) || s.Reminds() || !s.Remembers() {
		t.Errorf("support = %+v", s)
	}
	if r := cfg.Agent("random"); r.Remembers() || r.Evolves() || !r.Reminds() {
		t.Errorf("random's switches: memory %v, evolution %v, reminders %v", r.Remembers(), r.Evolves(), r.Reminds())
	}
	if len(cfg.Bindings) != 4 {
		t.Errorf("bindings = %+v", cfg.Bindings)
	}
}

// TestAgentsRequireTheirProviders: an agent on Anthropic, which nothing
// configures, is refused when a model is about to be called.
func TestAgentsRequireTheirProviders(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, agentsBase+"agents: {a: {model: anthropic/claude-sonnet-4-5}}\n", nil)
	if err := cfg.RequireLLM(); err == nil || !strings.Contains(err.Error(), `agents.a.model is "anthropic/claude-sonnet-4-5" but Anthropic is not configured`) {
		t.Errorf("RequireLLM() = %v", err)
	}
}

// TestSwitchableModels: llm.switchable is checked as agents.<a>.models
// are, and an agent that sets no models inherits it.
func TestSwitchableModels(t *testing.T) {
	t.Parallel()
	_, err := loadYAML(t, agentsBase, map[string]string{"PARLEY_LLM_SWITCHABLE": "local/x,nowhere/m1"})
	if err == nil || !strings.Contains(err.Error(), `llm.switchable[1]: provider "nowhere" in "nowhere/m1" is not configured`) {
		t.Fatalf("err = %v", err)
	}
	cfg, err := loadYAML(t, agentsBase+"agents: {a: {}, b: {models: []}, c: {models: [hosted/gpt-4.1]}}\n", map[string]string{"PARLEY_LLM_SWITCHABLE": "local/qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"default": {"local/qwen3"}, "a": {"local/qwen3"}, "b": {}, "c": {"hosted/gpt-4.1"}} {
		if got := cfg.Agent(name).Models; !slices.Equal(got, want) {
			t.Errorf("agents.%s models %v, want %v", name, got, want)
		}
	}
}
