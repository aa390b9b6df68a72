package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/tools/mcp"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/internal/secret"
	"github.com/parleybot/parley/webconsole"
)

// app is what Parley's commands share: storage, the model, the knowledge
// base, the memory judge and the MCP servers. The chat core over them,
// the runner and every tool included, is assemble's (assemble.go).
type app struct {
	cfg *config.Config
	db  backend
	// model is the chat model, counted for metrics; window its context
	// window, and blind whether it cannot see pictures.
	model llm.Provider
	// reg is every model server, for the agents' models (agents.go).
	reg    *llm.Registry
	window int
	blind  bool
	limits agent.MemoryLimits
	bridge *mcp.Bridge
	kb     *kb.Base
	judge  *guard.Judge
	// pauses tell the delegate tool's helpers their task was asked to
	// pause, once the core runs.
	pauses *pauseRelay
	// models are the model servers' HTTP clients (modelhttp.go).
	models modelClients
	// ops serves /metrics, /healthz and /readyz; nil unless http.listen
	// is set (ops.go).
	ops *operator
	// logger is the harness's: the runner's and its helpers'.
	logger *slog.Logger
	// console is the web console assemble built; nil when it is off.
	console *webconsole.Server
}

// openApp wires Parley from cfg. The caller closes it.
func openApp(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	return openAppWith(ctx, cfg, newOperator(cfg), logger)
}

// openAppWith is openApp with the operator endpoints ops (newOperator),
// which the caller built first: parley run, for its adapters.
func openAppWith(ctx context.Context, cfg *config.Config, ops *operator, logger *slog.Logger) (*app, error) {
	if err := cfg.RequireLLM(); err != nil {
		return nil, err
	}
	models := newModelClients(ops)
	reg := providers(cfg, models.For)
	blind := blindModel(cfg, logger)
	provider, err := chatModel(reg, cfg, blind, logger)
	if err != nil {
		return nil, err
	}
	db, err := openStore(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	limits := agent.MemoryLimits{Profile: cfg.Memory.ProfileChars, Facts: cfg.Memory.FactsChars, Team: cfg.Memory.TeamChars}
	judge, err := memoryJudge(cfg)
	if err != nil {
		db.Close()
		return nil, err
	}
	base, err := knowledgeBase(cfg, db, logger)
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := base.Ready(); err != nil {
		// Said once, at start; everything else works without it.
		logger.Warn(err.Error())
	}
	if err := importSkillFiles(ctx, legacySkillFiles(cfg), db, cfg.AgentNames(), logger); err != nil {
		db.Close()
		return nil, err
	}
	bridge := connectMCP(ctx, cfg, logger)
	return &app{cfg: cfg, db: db, model: ops.provider(provider), reg: reg, window: reg.Info(cfg.LLM.Model).ContextWindow, blind: blind,
		limits: limits, bridge: bridge, kb: base, judge: judge, pauses: &pauseRelay{}, models: models, ops: ops, logger: logger}, nil
}

// chatModel is the provider the runner talks to: llm.model, or with
// llm.fallback the chain of models behind their circuit breakers, which
// sends a fallback that cannot see the pictures' placeholders (modelSees).
// blind is whether llm.model sees (blindModel).
func chatModel(reg *llm.Registry, cfg *config.Config, blind bool, logger *slog.Logger) (llm.Provider, error) {
	if len(cfg.LLM.Fallback) == 0 {
		return reg.Resolve(cfg.LLM.Model)
	}
	return reg.Fallback(cfg.LLM.Chain(), llm.FallbackOptions{
		Cooldown: cfg.LLM.FallbackCooldown(), Sees: modelSees(cfg, blind), Logger: logger,
	})
}

// memoryJudge is the model call that judges memory writes
// (memory.guard_model, default llm.model), or nil when it is off.
func memoryJudge(cfg *config.Config) (*guard.Judge, error) {
	model := cfg.JudgeModel()
	if model == "" {
		return nil, nil
	}
	p, err := providers(cfg, nil).Resolve(model)
	if err != nil {
		return nil, fmt.Errorf("memory.guard_model: %w", err)
	}
	return &guard.Judge{Classifier: guard.LLMClassifier{Provider: p}}, nil
}

// connectMCP starts the MCP servers the config names, or returns nil.
// Servers that fail to start are logged and skipped: one broken server
// must not keep Parley from answering.
func connectMCP(ctx context.Context, cfg *config.Config, logger *slog.Logger) *mcp.Bridge {
	var servers []mcp.ServerConfig
	for _, s := range cfg.Tools.MCP.Servers {
		servers = append(servers, mcp.ServerConfig{
			Name: s.Name, Command: s.Command, Args: s.Args, Env: reveal(s.Env),
			URL: s.URL, Headers: reveal(s.Headers), Trusted: s.Trusted,
		})
	}
	if len(servers) == 0 {
		return nil
	}
	bridge, errs := mcp.Connect(ctx, servers, logger)
	for _, err := range errs {
		logger.Warn("MCP server skipped", "err", err)
	}
	return bridge
}

// policies turns the config's approval lists into per-tool overrides. The
// shell tool is never in Never: config validation refuses it.
func policies(a config.Approval) map[string]agent.Policy {
	p := map[string]agent.Policy{}
	for _, name := range a.Always {
		p[name] = agent.PolicyAlways
	}
	for _, name := range a.Never {
		p[name] = agent.PolicyNever
	}
	return p
}

func reveal(m map[string]secret.Secret) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.Reveal()
	}
	return out
}

// modelServer is one model server's provider, with the cheap
// authenticated call doctor makes.
type modelServer interface {
	llm.Provider
	Check(ctx context.Context) error
}

// newModelServer builds the provider of one model server (a named
// provider, or llm.openai / llm.anthropic) by its kind. hc may be nil.
func newModelServer(s config.ProviderSettings, hc *http.Client) modelServer {
	if s.Kind == config.KindAnthropic {
		return anthropic.New(serverConfig(s, hc))
	}
	return openAIProvider(s, hc)
}

// openAIProvider is the provider of a model server of kind openai (OpenAI
// or a compatible server): chat models and embeddings. hc may be nil.
func openAIProvider(s config.ProviderSettings, hc *http.Client) *openai.Provider {
	return openai.New(serverConfig(s, hc))
}

func serverConfig(s config.ProviderSettings, hc *http.Client) llm.Config {
	return llm.Config{APIKey: s.Key.Reveal(), BaseURL: s.BaseURL, HTTPClient: hc, Headers: reveal(s.Headers), Timeout: s.Timeout}
}

// background starts what runs beside the chat core: embedding new
// passages, keeping kb.dirs in sync, deleting conversations past
// history.keep_days (retention.go), and handing memory back to the OS
// when Parley goes quiet, idle connections to local model servers with it
// (trim.go). The returned function stops them and
// waits.
func (a *app) background(ctx context.Context, lead leader, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { newTrimmer(a.db, a.models, logger).run(ctx) })
	startBackups(ctx, &wg, a.cfg, logger) // backup.go: backup.every
	// The rest runs on one replica at a time: it writes shared state, and
	// twice would cost twice (embeddings, reflections).
	if a.kb.Ready() == nil {
		wg.Go(func() {
			_ = lead(ctx, "background:kb-embedder", func(ctx context.Context) error { a.kb.RunEmbedder(ctx); return nil })
		})
		if dirs := a.cfg.KB.Dirs; len(dirs) > 0 {
			wg.Go(func() {
				err := lead(ctx, "background:kb-dirs", func(ctx context.Context) error {
					return a.kb.WatchDirs(ctx, bot.OperatorScope().Key(), dirs, kb.WatchOptions{})
				})
				if err != nil {
					logger.Error("knowledge base: cannot watch kb.dirs", "err", err)
				}
			})
		}
	}
	if days := a.cfg.History.KeepDays; days > 0 {
		p := newPruner(days, a.db.PruneConversations, logger)
		wg.Go(func() {
			_ = lead(ctx, "background:history-prune", func(ctx context.Context) error { p.run(ctx); return nil })
		})
	}
	if a.cfg.Evolution.Enabled {
		if s, err := a.scheduler(logger); err != nil {
			logger.Error("reflection does not run", "err", err)
		} else {
			wg.Go(func() {
				_ = lead(ctx, "background:reflection", func(ctx context.Context) error { s.Run(ctx); return nil })
			})
		}
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

func (a *app) Close() error {
	if a.bridge != nil {
		if err := a.bridge.Close(); err != nil {
			slog.Warn("close MCP servers", "err", err)
		}
	}
	if err := a.db.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// providers registers every configured model server under its name (the
// named providers, and openai and anthropic when llm.openai / llm.anthropic
// configure them), with the table of models that sizes each call. client
// gives a server's HTTP client by its base URL (modelClients.For); nil
// leaves each to its provider's default.
func providers(cfg *config.Config, client func(baseURL string) *http.Client) *llm.Registry {
	reg := llm.NewRegistry()
	reg.UseModels(cfg.ModelTable())
	for _, name := range cfg.ProviderNames() {
		s, _ := cfg.Endpoint(name)
		var hc *http.Client
		if client != nil {
			hc = client(s.BaseURL)
		}
		reg.Register(name, newModelServer(s, hc))
	}
	return reg
}
