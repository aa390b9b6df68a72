package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
			platforms := cfg.EnabledPlatforms()
			if len(platforms) == 0 {
				if !e.terminal {
					return errors.New("no chat platform is enabled and standard input is not a terminal: " +
						"enable slack, telegram or discord in the config, or run `parley chat` to read from a pipe")
				}
				return runChat(cmd.Context(), e, cfg)
			}
			// The platform adapters land with their own issues; until then
			// say so plainly instead of pretending to listen.
			return fmt.Errorf("%s enabled, but this build of Parley has no adapter for it yet; "+
				"disable it to use the terminal chat", strings.Join(platforms, ", "))
		},
	}
}
