package main

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// testConfig loads a configuration from env alone, with API keys for
// both providers.
func testConfig(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	env["PARLEY_LLM_OPENAI_API_KEY"], env["PARLEY_LLM_ANTHROPIC_API_KEY"] = "k", "k"
	cfg, err := config.Load(config.LoadOptions{
		Env:         func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Getwd:       func() (string, error) { return t.TempDir(), nil },
		UserHomeDir: func() (string, error) { return t.TempDir(), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestChatModel: llm.fallback makes the runner's provider a chain, the
// primary first; without it the runner talks to llm.model alone.
func TestChatModel(t *testing.T) {
	load := func(env map[string]string) *config.Config { return testConfig(t, env) }
	cfg := load(map[string]string{"PARLEY_LLM_MODEL": "claude-sonnet-4-5", "PARLEY_LLM_FALLBACK": "gpt-4.1-mini"})
	p, err := chatModel(providers(cfg, nil), cfg, false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := p.(*llm.Fallback)
	if want := []string{"anthropic/claude-sonnet-4-5", "openai/gpt-4.1-mini"}; !ok || !slices.Equal(f.Models(), want) {
		t.Fatalf("provider %T, want a Fallback over %v", p, want)
	}
	cfg = load(map[string]string{"PARLEY_LLM_MODEL": "gpt-4o"})
	if p, err := chatModel(providers(cfg, nil), cfg, false, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	} else if _, ok := p.(*llm.Fallback); ok {
		t.Error("a Fallback without llm.fallback")
	}
	if got := providers(cfg, nil).Info(cfg.LLM.Model).ContextWindow; got != 128000 {
		t.Errorf("gpt-4o's window %d, want the table's 128,000", got)
	}
}

// TestModelSees: which models of the chain are sent images — llm.model as
// llm.vision and the table say, each fallback by the table alone (an
// unknown one counted blind), and none with llm.vision: off.
func TestModelSees(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want map[string]bool
	}{
		{"auto", map[string]string{"PARLEY_LLM_MODEL": "claude-sonnet-4-5", "PARLEY_LLM_FALLBACK": "gpt-3.5-turbo,gpt-4o,openai/my-local-model"},
			map[string]bool{"anthropic/claude-sonnet-4-5": true, "openai/gpt-3.5-turbo": false, "openai/gpt-4o": true, "openai/my-local-model": false}},
		{"on speaks for llm.model alone", map[string]string{"PARLEY_LLM_MODEL": "openai/my-local-model", "PARLEY_LLM_VISION": "on", "PARLEY_LLM_FALLBACK": "openai/other-local-model"},
			map[string]bool{"openai/my-local-model": true, "openai/other-local-model": false}},
		{"off", map[string]string{"PARLEY_LLM_MODEL": "gpt-4o", "PARLEY_LLM_VISION": "off", "PARLEY_LLM_FALLBACK": "claude-sonnet-4-5"},
			map[string]bool{"openai/gpt-4o": false, "anthropic/claude-sonnet-4-5": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, tt.env)
			sees := modelSees(cfg, blindModel(cfg, slog.New(slog.DiscardHandler)))
			for _, name := range cfg.LLM.Chain() {
				full, err := llm.Canonical(name)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := sees(full), tt.want[full]; got != want {
					t.Errorf("sees(%s) = %v, want %v", full, got, want)
				}
			}
		})
	}
}
