package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

func newRunCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Start every enabled chat platform (the default); with none, the terminal chat",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			if len(cfg.EnabledPlatforms()) == 0 {
				if !e.terminal {
					return errors.New("no chat platform is enabled and standard input is not a terminal: " +
						"enable " + cfg.PlatformNames("or") + " in the config, or run `parley chat` to read from a pipe")
				}
				return runChat(cmd.Context(), e, cfg)
			}
			if err := cfg.RequireApprover(); err != nil {
				return err
			}
			holdGC(e.lookupEnv) // until the trimmer finds start-up settled (gc.go)
			logger := cfg.Log.Logger(e.stderr, slog.LevelDebug)
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			go func() {
				// Ctrl-C shuts the platforms down as SIGTERM does.
				select {
				case <-e.interrupts:
					cancel()
				case <-ctx.Done():
				}
			}()
			if err := cfg.RequireLLM(); err != nil {
				return err
			}
			// The adapters are built before the store opens and start
			// asking their platforms who they are meanwhile (prepare.go);
			// their state is the store's once it is open.
			ops := newOperator(cfg)
			web := inboundServer(cfg, logger)
			state := newPendingState()
			adapters, err := platformAdapters(cfg, state, web, ops, logger)
			if err != nil {
				return err
			}
			prepare(ctx, adapters)
			a, err := openAppWith(ctx, cfg, ops, logger)
			if err != nil {
				return err
			}
			defer a.Close()
			state.set(a.db)
			return runPlatforms(ctx, a, adapters, web, logger)
		},
	}
}

// inboundServer returns the server on http.listen that the adapters
// receiving over HTTP (Slack's HTTP mode, Telegram's webhook) and the
// operator endpoints (ops.go) share, or nil when nothing is served.
func inboundServer(cfg *config.Config, logger *slog.Logger) *inbound.Server {
	serves := cfg.HTTP.Ops()
	for _, p := range cfg.Platforms {
		serves = serves || p.Section.ServesHTTP()
	}
	if !serves {
		return nil
	}
	return inbound.New(cfg.HTTP.Address(), logger)
}

// platformAdapters builds the adapter of every enabled platform. state is
// where adapters keep their cursors (Telegram's update offset, its reply
// chains): the app's database. web, when not nil, is where adapters that
// receive over HTTP register their endpoints. ops, when not nil, counts
// their API calls.
func platformAdapters(cfg *config.Config, state chat.PlatformState, web *inbound.Server, ops *operator, logger *slog.Logger) ([]chat.Adapter, error) {
	env := chat.Env{Listen: cfg.HTTP.Address(), State: state, Logger: logger}
	// A nil *inbound.Server must not become a non-nil interface.
	if web != nil {
		env.Mux = web
	}
	var out []chat.Adapter
	for _, p := range cfg.Platforms {
		if !p.Section.Enabled() {
			continue
		}
		env.HTTPClient = ops.httpClient(p.Platform)
		a, err := p.Section.New(env)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
