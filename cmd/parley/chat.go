package main

import (
	"context"
	"log/slog"
	"os/user"
	"slices"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/adapters/console"
	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

func newChatCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "chat",
		Short: "Chat with Parley in the terminal",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			return runChat(cmd.Context(), e, cfg)
		},
	}
}

// runChat runs the chat core over the terminal, as runPlatforms does over
// chat platforms. The person at the terminal is its operator: the
// conversation is open to them alone, and they may decide any approval.
func runChat(ctx context.Context, e *environment, cfg *config.Config) error {
	logger := cfg.Log.Logger(e.stderr, slog.LevelWarn)
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	operator := consoleUser(e)
	term := &terminal{Adapter: console.New(console.Config{
		In:          e.stdin,
		Out:         e.stdout,
		User:        operator,
		Interactive: e.terminal,
		Interrupts:  e.interrupts,
	}), quit: cancel}
	acc := access(cfg)
	acc.Platforms[console.Platform] = bot.AccessList{AllowUsers: []string{operator.ID}}
	acc.Admins = append(acc.Admins, operator.Key())
	// The person at the terminal is the operator: they approve there, the
	// shell included.
	approvers := append(slices.Clone(cfg.ApproversOrAdmins()), operator.Key())
	// The core's warnings (a turn failed) are about the conversation, which
	// the terminal shows itself.
	core, err := assemble(a, []chat.Adapter{term}, acc, approvers, cfg.Log.Logger(e.stderr, slog.LevelError))
	if err != nil {
		return err
	}
	// With http.listen set, /healthz, /readyz and /metrics are served here
	// too (docs/operations.md), as for the chat platforms.
	var web *inbound.Server
	if a.ops != nil {
		web = inbound.New(cfg.HTTP.Address(), logger)
		if err := a.ops.serve(web, core, a.db, []chat.Adapter{term}); err != nil {
			return err
		}
	}
	defer a.background(ctx, alone, logger)()
	defer a.runConsole(ctx, core, []chat.Adapter{term}, logger)()
	if err := serveWhile(ctx, web, core.Run); err != nil {
		return err
	}
	return term.err
}

// terminal is the console adapter whose Run, when the person leaves, also
// ends the core: nothing else (a turn recovered from a crash, waiting for
// an approval nobody here was asked) may keep the chat open. Such a turn
// stays unfinished and continues at the next start.
type terminal struct {
	*console.Adapter
	quit context.CancelFunc
	err  error // Run's, which the core ignores once its context has ended
}

func (t *terminal) Run(ctx context.Context, h chat.Handler) error {
	t.err = t.Adapter.Run(ctx, h)
	t.quit()
	return t.err
}

// consoleUser is the OS user: the terminal chat has no other identity.
// $USER comes first because containers often run as a uid with no passwd
// entry.
func consoleUser(e *environment) chat.User {
	name, _ := e.lookupEnv("USER")
	if u, err := user.Current(); name == "" && err == nil {
		name = u.Username
	}
	if name == "" {
		name = "you"
	}
	return chat.User{Platform: console.Platform, ID: name, Name: name}
}
