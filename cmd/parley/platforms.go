package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/parleybot/parley/chat"

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
	core, err := assemble(a, adapters, access(cfg), approvers, logger)
	if err != nil {
		return err
	}
	if err := a.ops.serve(web, core, a.db, adapters); err != nil {
		return err
	}
	logger.Info("parley is running", "platforms", strings.Join(cfg.EnabledPlatforms(), ","), "model", cfg.LLM.Model)
	defer a.background(ctx, core.Lead, logger)()
	defer a.runConsole(ctx, core, adapters, logger)()
	return serveWhile(ctx, web, core.Run)
}

// serveWhile runs run, with web (when not nil) served on http.listen for
// as long as it runs; failing to listen or serve stops it.
func serveWhile(ctx context.Context, web *inbound.Server, run func(context.Context) error) error {
	if web == nil {
		return run(ctx)
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
	err = run(rctx)
	cancel()
	if serr := <-served; serr != nil {
		return serr
	}
	return err
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
