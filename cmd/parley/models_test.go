package main

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// TestChatModel: llm.fallback makes the runner's provider a chain, the
// primary first; without it the runner talks to llm.model alone.
func TestChatModel(t *testing.T) {
	load := func(env map[string]string) *config.Config {
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
	cfg := load(map[string]string{"PARLEY_LLM_MODEL": "claude-sonnet-4-5", "PARLEY_LLM_FALLBACK": "gpt-4.1-mini"})
	p, err := chatModel(providers(cfg, nil), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := p.(*llm.Fallback)
	if want := []string{"anthropic/claude-sonnet-4-5", "openai/gpt-4.1-mini"}; !ok || !slices.Equal(f.Models(), want) {
		t.Fatalf("provider %T, want a Fallback over %v", p, want)
	}
	cfg = load(map[string]string{"PARLEY_LLM_MODEL": "gpt-4o"})
	if p, err := chatModel(providers(cfg, nil), cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	} else if _, ok := p.(*llm.Fallback); ok {
		t.Error("a Fallback without llm.fallback")
	}
	if got := providers(cfg, nil).Info(cfg.LLM.Model).ContextWindow; got != 128000 {
		t.Errorf("gpt-4o's window %d, want the table's 128,000", got)
	}
}
