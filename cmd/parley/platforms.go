package main

import (
	"context"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/chat"
	"log/slog"
	"strings"
	"time"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// runPlatforms runs the chat core over adapters until ctx ends. The core
// wires itself (bot.NewCore); this only hands it the parts.
//
// web, when not nil, is served on http.listen for as long as the core
// runs; failing to listen stops everything.
func runPlatforms(ctx context.Context, a *app, adapters []chat.Adapter, web *inbound.Server, logger *slog.Logger) error {
	cfg := a.cfg
	approvers := cfg.ApproversOrAdmins()
	if approvers == nil {
		approvers = []string{} // nobody: not "the core's default"
	}
	cc, err := coreConfig(a, adapters, access(cfg), approvers, logger)
	if err != nil {
		return err
	}
	core, err := bot.NewCore(cc)
	if err != nil {
		return err
	}
	a.pauses.set(core.PauseAsked)
	if err := a.ops.serve(web, core, a.db, adapters); err != nil {
		return err
	}
	logger.Info("parley is running", "platforms", strings.Join(cfg.EnabledPlatforms(), ","), "model", cfg.LLM.Model)
	defer a.background(ctx, core.Lead, logger)()
	if web == nil {
		return core.Run(ctx)
	}
	// Bound before the adapters start, so the address is open before
	// Telegram is told to post to it.
	ln, err := web.Listen()
	if err != nil {
		return err
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		err := web.ServeOn(rctx, ln)
		if err != nil {
			cancel()
		}
		served <- err
	}()
	err = core.Run(rctx)
	cancel()
	if serr := <-served; serr != nil {
		return serr
	}
	return err
}

// coreConfig is the chat core of a over adapters, the terminal's or the
// chat platforms'.
func coreConfig(a *app, adapters []chat.Adapter, acc bot.Access, approvers []string, logger *slog.Logger) (bot.CoreConfig, error) {
	var runs bot.RunRecorder
	var learn bot.Learning
	if a.cfg.Evolution.Enabled {
		runs = evolve.Recorder{Runs: a.db, Memos: a.db}
		learn = learning{files: skillFiles(a.cfg), db: a.db, s: a.scheduler(logger)}
	}
	cc := bot.CoreConfig{
		Adapters:       adapters,
		Store:          a.db,
		Runner:         a.runner,
		MemoryLimits:   a.limits,
		Access:         acc,
		Approvers:      approvers,
		ApprovalExpiry: time.Duration(a.cfg.Tools.Approval.ExpireMinutes) * time.Minute,
		MaxConcurrent:  a.cfg.LLM.MaxConcurrent,
		Model:          a.cfg.LLM.Model,
		Limits:         bot.Limits(a.cfg.Limits),
		Knowledge:      a.kb,
		Attachments:    attachmentLimits(a.cfg.Attachments),
		Runs:           runs,
		Learning:       learn,
		Metrics:        a.ops.metrics(),
		Sharing:        sharing(a.cfg, a.db),
		Logger:         logger,
	}
	if a.cfg.Tasks.Enabled {
		cc.Tasks, cc.Helpers = a.db, a.db
	}
	if a.cfg.Reminders.Enabled {
		if err := withReminders(&cc, a, adapters, logger); err != nil {
			return cc, err
		}
	}
	return cc, nil
}

// access turns the config's allow lists into the router's policy, each
// platform open or closed by default as its description says.
func access(cfg *config.Config) bot.Access {
	acc := bot.Access{Platforms: map[string]bot.AccessList{}, Admins: cfg.Access.Admins}
	for _, p := range cfg.Platforms {
		l := cfg.Access.Platforms[p.Name]
		acc.Platforms[p.Name] = bot.AccessList{Open: p.Open, AllowUsers: l.AllowUsers, AllowChats: l.AllowChats, FreeChats: l.FreeChats}
	}
	return acc
}
