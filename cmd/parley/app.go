package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/tools"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
)

// app is Parley wired together: storage, the model, the harness and the
// chat core.
type app struct {
	cfg *config.Config
	db  *store.DB
	bot *bot.Bot
}

// openApp wires Parley from cfg. The caller closes it.
func openApp(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	if err := cfg.RequireLLM(); err != nil {
		return nil, err
	}
	provider, err := providers(cfg, nil).Resolve(cfg.LLM.Model)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, cfg.DBPath())
	if err != nil {
		return nil, err
	}
	limits := agent.MemoryLimits{}
	memoryTool, err := tools.Memory(db, limits)
	if err != nil {
		db.Close()
		return nil, err
	}
	runner := &agent.Runner{
		Provider:     provider,
		Sessions:     db,
		Memory:       db,
		Tools:        []agent.Tool{memoryTool},
		Persona:      cfg.LLM.Persona,
		MemoryLimits: limits,
		MaxTokens:    cfg.LLM.MaxTokens,
		Logger:       logger,
	}
	return &app{cfg: cfg, db: db, bot: bot.New(db, db, runner, limits)}, nil
}

func (a *app) Close() error {
	if err := a.db.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// providers registers every configured LLM provider. hc may be nil.
func providers(cfg *config.Config, hc *http.Client) *llm.Registry {
	reg := llm.NewRegistry()
	if cfg.LLM.Configured(config.ProviderOpenAI) {
		reg.Register(config.ProviderOpenAI, openai.New(openai.Config{
			APIKey: cfg.LLM.OpenAI.APIKey.Reveal(), BaseURL: cfg.LLM.OpenAI.BaseURL, HTTPClient: hc,
		}))
	}
	if cfg.LLM.Configured(config.ProviderAnthropic) {
		reg.Register(config.ProviderAnthropic, anthropic.New(anthropic.Config{
			APIKey: cfg.LLM.Anthropic.APIKey.Reveal(), BaseURL: cfg.LLM.Anthropic.BaseURL, HTTPClient: hc,
		}))
	}
	return reg
}
