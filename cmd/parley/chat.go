package main

import (
	"context"
	"log/slog"
	"os/user"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/adapters/console"
	"github.com/parleybot/parley/bot"
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

func runChat(ctx context.Context, e *environment, cfg *config.Config) error {
	logger := newLogger(e.stderr, slog.LevelWarn)
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	c := &console.Console{
		Core:        bot.New(a.db, a.db, a.runner, a.limits),
		In:          e.stdin,
		Out:         e.stdout,
		User:        consoleUser(e),
		Interactive: e.terminal,
		Interrupts:  e.interrupts,
	}
	return c.Run(ctx)
}

// consoleUser is the OS user: the terminal chat has no other identity.
// $USER comes first because containers often run as a uid with no passwd
// entry.
func consoleUser(e *environment) bot.User {
	name, _ := e.lookupEnv("USER")
	if u, err := user.Current(); name == "" && err == nil {
		name = u.Username
	}
	if name == "" {
		name = "you"
	}
	return bot.User{Platform: "console", ID: name, Name: name}
}
