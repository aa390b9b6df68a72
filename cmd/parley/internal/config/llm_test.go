package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
)

// TestModelChain: bare names are completed with their provider; the
// models table keeps names as written, dots and capitals included, from
// the file or as JSON from the environment; thinking and the cool-down
// reach the agent's types.
func TestModelChain(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, `llm:
  model: claude-sonnet-4-5
  fallback: [gpt-4.1-mini, anthropic/claude-haiku-4-5]
  thinking: Medium
  context_window: 64000
  models:
    gpt-4.1-mini: {context_window: 200000}
    openai/Qwen/Qwen2.5-7B-Instruct: {context_window: 32768, max_tokens: 2048}
memory:
  guard_model: claude-haiku-4-5
`, map[string]string{"PARLEY_LLM_ANTHROPIC_API_KEY": "k", "PARLEY_LLM_OPENAI_API_KEY": "k", "PARLEY_LLM_FALLBACK_COOLDOWN_SECONDS": "90"})
	want := []string{"anthropic/claude-sonnet-4-5", "openai/gpt-4.1-mini", "anthropic/claude-haiku-4-5"}
	if diff := cmp.Diff(want, cfg.LLM.Chain()); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
	if cfg.JudgeModel() != "anthropic/claude-haiku-4-5" || cfg.LLM.FallbackCooldown() != 90*time.Second {
		t.Errorf("judge %q, cool-down %v", cfg.JudgeModel(), cfg.LLM.FallbackCooldown())
	}
	if r := cfg.LLM.Reasoning(); r != (llm.Reasoning{Budget: 8192, Effort: "medium"}) {
		t.Errorf("reasoning %+v", r)
	}
	table := cfg.LLM.ModelTable()
	for name, window := range map[string]int{
		"openai/gpt-4.1-mini":             200000, // llm.models, by the provider's name
		"openai/Qwen/Qwen2.5-7B-Instruct": 32768,  // llm.models, by the full name
		"anthropic/claude-sonnet-4-5":     64000,  // llm.context_window over the table
	} {
		if got := table.Info(name).ContextWindow; got != window {
			t.Errorf("%s: window %d, want %d", name, got, window)
		}
	}
	if err := cfg.RequireLLM(); err != nil {
		t.Errorf("RequireLLM: %v", err)
	}

	env := mustLoadYAML(t, "", map[string]string{"PARLEY_LLM_OPENAI_API_KEY": "k",
		"PARLEY_LLM_FALLBACK": "claude-haiku-4-5", "PARLEY_LLM_MODELS": `{"gpt-4.1-mini": {"max_tokens": 1000}}`})
	if got := env.LLM.ModelTable().Info("openai/gpt-4.1-mini").MaxTokens; got != 1000 {
		t.Errorf("max tokens from PARLEY_LLM_MODELS: %d", got)
	}
	if err := env.RequireLLM(); err == nil || err.Error() != `llm.fallback[0] is "anthropic/claude-haiku-4-5" but Anthropic is not configured: set `+anthropicHint {
		t.Errorf("RequireLLM with an unconfigured fallback: %v", err)
	}
}
