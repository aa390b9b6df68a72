package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/tools"
	"github.com/parleybot/parley/agent/tools/shell"
	"github.com/parleybot/parley/agent/tools/webfetch"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole"
)

// assemble builds the chat core of a over adapters (the terminal's or the
// chat platforms'), in the order its parts depend on each other: what
// reminders need from the platforms (each person's zone), every tool, the
// runner over them, then the core, which the caller runs.
func assemble(a *app, adapters []chat.Adapter, acc bot.Access, approvers []string, logger *slog.Logger) (*bot.Core, error) {
	var rem *reminderParts
	if a.cfg.Reminders.Enabled {
		var err error
		if rem, err = newReminderParts(a, adapters, logger); err != nil {
			return nil, err
		}
	}
	var tasks *taskParts
	if a.cfg.Tasks.Enabled {
		var err error
		if tasks, err = newTaskParts(a.db, a.cfg.Tasks, a.pauses, a.logger); err != nil {
			return nil, err
		}
	}
	list, err := a.tools(rem, tasks)
	if err != nil {
		return nil, err
	}
	runner, err := a.newRunner(list, tasks)
	if err != nil {
		return nil, err
	}
	agents, err := a.agents(runner, list, tasks)
	if err != nil {
		return nil, err
	}
	var runs bot.RunRecorder
	var learn bot.Learning
	var console webconsole.Learning // nil: the Learning page says learning is off
	if a.cfg.Evolution.Enabled {
		runs = evolve.Recorder{Runs: a.db, Memos: a.db}
		l, err := a.learning(logger)
		if err != nil {
			return nil, err
		}
		learn, console = l, l
	}
	cc := bot.CoreConfig{
		Adapters:       adapters,
		Store:          a.db,
		Runner:         runner,
		Agents:         agents,
		MemoryLimits:   a.limits,
		Access:         acc,
		Approvers:      approvers,
		ApprovalExpiry: time.Duration(a.cfg.Tools.Approval.ExpireMinutes) * time.Minute,
		MaxConcurrent:  a.cfg.LLM.MaxConcurrent,
		Model:          a.cfg.LLM.Model,
		Limits:         bot.Limits(a.cfg.Limits),
		Knowledge:      a.kb,
		Attachments:    attachmentLimits(a.cfg.Attachments, transcription(a.cfg, logger)),
		DiskFloor:      dataFloor(a.cfg).Check,
		Runs:           runs,
		Learning:       learn,
		Metrics:        a.ops.metrics(),
		Costs:          a.db,
		Audit:          a.db,
		Team:           a.teamNotes(),
		History:        a.db,
		Sharing:        sharing(a.cfg, a.db),
		Logger:         logger,
	}
	if tasks != nil {
		cc.Tasks, cc.Helpers = a.db, a.db
	}
	if rem != nil {
		cc.Reminders, cc.ReminderLoop, cc.Zones = a.db, rem.loop, rem.zones
	}
	if a.console, err = newConsole(a, acc, console, logger); err != nil {
		return nil, err
	}
	if a.console != nil {
		cc.ConsoleLink = a.console.NewLink
	}
	cc.Conversations = func(ctx context.Context, user string) (int, error) {
		// The same list the console shows a person, counted: a person's
		// conversations are few enough to list for a Home page.
		cs, err := a.db.Conversations(ctx, store.ConversationFilter{User: user})
		return len(cs), err
	}
	core, err := bot.NewCore(cc)
	if err != nil {
		return nil, err
	}
	a.pauses.set(core.PauseAsked)
	return core, nil
}

// tools is every tool the runner offers, in one place, the configuration
// deciding which: memory and history_search always; kb_search with the
// knowledge base; web_fetch, web_search, shell and the MCP servers' as
// configured; skill_read with learning; remind and schedule with
// reminders; todo and delegate with tasks.
func (a *app) tools(rem *reminderParts, tasks *taskParts) ([]agent.Tool, error) {
	cfg := a.cfg
	memoryTool, err := tools.Memory(a.db, a.limits, a.judge)
	if err != nil {
		return nil, err
	}
	list := []agent.Tool{memoryTool}
	if a.kb.Ready() == nil {
		search, err := tools.KBSearch(a.kb)
		if err != nil {
			return nil, err
		}
		list = append(list, search)
	}
	history, err := tools.HistorySearch(time.Now)
	if err != nil {
		return nil, err
	}
	list = append(list, history)
	if cfg.Tools.WebFetch.Enabled {
		wf, err := webfetch.New(webfetch.Options{AllowHosts: cfg.Tools.WebFetch.AllowHosts})
		if err != nil {
			return nil, err
		}
		list = append(list, wf)
	}
	if cfg.Tools.WebSearch.Enabled() {
		ws, err := webSearchTool(cfg.Tools.WebSearch, cfg.Access.Admins, a.db)
		if err != nil {
			return nil, err
		}
		list = append(list, ws)
	}
	if cfg.Tools.Shell.Enabled {
		protected := []string{cfg.DBPath()}
		if cfg.File != "" {
			protected = append(protected, cfg.File)
		}
		sh, err := shell.New(shell.Options{
			DataDir: cfg.DataDir, ProtectedPaths: protected, Unsandboxed: cfg.Tools.Shell.Unsandboxed,
			Network:         shell.Network(cfg.Tools.Shell.Network),
			WorkspaceBudget: int64(cfg.Tools.Shell.WorkspaceMB) << 20,
			MinFree:         int64(cfg.Store.MinFreeMB) << 20,
		})
		if err != nil {
			return nil, err
		}
		list = append(list, sh)
	}
	if a.bridge != nil {
		list = append(list, a.bridge.Tools()...)
	}
	if cfg.Evolution.Enabled {
		var workspace func(string) (string, error) // an installed skill's files go where the shell works
		if cfg.Tools.Shell.Enabled {
			workspace = func(id string) (string, error) { return shell.SessionWorkspace(cfg.DataDir, id) }
		}
		read, err := evolve.SkillRead(skillBook(cfg, a.db), workspace)
		if err != nil {
			return nil, err
		}
		list = append(list, read)
	}
	if rem != nil {
		list = append(list, rem.tools...)
	}
	if tasks != nil {
		list = append(list, tasks.tools...)
	}
	return list, nil
}

// newRunner is the harness over list, built whole: the default agent's.
func (a *app) newRunner(list []agent.Tool, tasks *taskParts) (*agent.Runner, error) {
	return agent.NewRunner(a.runnerConfig(list, tasks))
}

// runnerConfig is the default agent's harness over list (the top-level
// settings), which the other agents' change (agents.go).
func (a *app) runnerConfig(list []agent.Tool, tasks *taskParts) agent.RunnerConfig {
	cfg := a.cfg
	r := agent.RunnerConfig{
		Provider:     a.model,
		Sessions:     a.db,
		Memory:       a.db,
		Team:         a.db,
		Tools:        list,
		Policies:     policies(cfg.Tools.Approval),
		Persona:      cfg.LLM.Persona,
		MemoryLimits: a.limits,
		// Answers are sized per model by the registry (llm.models,
		// llm.max_tokens, the table); compaction keeps to the primary's
		// window, and a smaller fallback window is met by compacting
		// when that model says the prompt is too long.
		ContextWindow: a.window,
		CompactAt:     float64(cfg.LLM.CompactAtPercent) / 100,
		Blind:         a.blind,
		ImageLimits:   imageLimits(cfg.Attachments),
		Reasoning:     cfg.LLM.Reasoning(),
		ShowThinking:  cfg.LLM.ShowThinking,
		Logger:        a.logger,
	}
	if tasks != nil {
		r.Plans, r.TaskSteps, r.MaxChecks = tasks.plans, tasks.steps, tasks.checks
	}
	if cfg.Evolution.Enabled {
		r.Skills = evolve.Index{Files: skillBook(cfg, a.db), Impressions: a.db, Memos: a.db, Rates: a.db, BudgetTokens: cfg.Evolution.IndexTokens}
	}
	return r
}
