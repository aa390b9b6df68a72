package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// environment is everything the commands take from the process, so tests
// can run them in-process with pipes and a fake environment.
type environment struct {
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	lookupEnv  func(string) (string, bool)
	terminal   bool            // stdin is a terminal
	interrupts <-chan struct{} // Ctrl-C
	// platforms are the chat platforms Parley knows; nil: all of
	// Parley's own (platforms.All). Tests add one of their own.
	platforms []chat.Platform
}

// platformList is e's platforms.
func (e *environment) platformList() []chat.Platform {
	if e.platforms == nil {
		return platforms.All()
	}
	return e.platforms
}

// exitError carries a specific exit status.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// execute runs the CLI and returns the process exit status.
func execute(ctx context.Context, e *environment, args []string) int {
	root := newRootCmd(e)
	strictSubcommands(root) // an unknown subcommand is an error (unknown.go)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		if ee, ok := errors.AsType[exitError](err); ok {
			return ee.code
		}
		fmt.Fprintf(e.stderr, "parley: %v\n", err)
		return 1
	}
	return 0
}

func newRootCmd(e *environment) *cobra.Command {
	var configPath string
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Path: configPath, Env: e.lookupEnv, Platforms: e.platformList()})
	}
	root := &cobra.Command{
		Use:   "parley",
		Short: "Parley: an AI agent for Slack, Telegram, Discord and the terminal",
		Long: "Parley is a self-hosted AI agent. With a chat platform enabled in the config it answers there;\n" +
			"with none it opens the terminal chat.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		Version:       versionLine(), // --version: version, commit, build date (version.go)
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.PersistentFlags().StringVar(&configPath, "config", "", "configuration file (default ./config.yaml, then $XDG_CONFIG_HOME/parley/config.yaml)")

	run := newRunCmd(e, load)
	root.RunE = run.RunE
	root.AddCommand(run, newChatCmd(e, load), newDoctorCmd(e, load), newKBCmd(e, load), newMigrateCmd(e, load), newReflectCmd(e, load), newSkillsCmd(e, load), newVersionCmd(e), newSlackManifestCmd(e), newBackupCmd(e, load), newRestoreCmd(e, load))
	root.AddCommand(newHealthcheckCmd(e, load))                         // the image's HEALTHCHECK (healthcheck.go)
	root.AddCommand(newInitCmd(e, func() string { return configPath })) // parley init (init.go)
	root.AddCommand(newMemoryCmd(e, load))                              // parley memory show|export|erase (memory.go)
	root.AddCommand(newExportCmd(e, load))                              // parley export (export.go)
	root.AddCommand(newAgentsCmd(e, load))                              // parley agents ls (agents_cmd.go)
	root.AddCommand(newConsoleCmd(e, load))                             // parley console login|logout|sessions (console.go)
	return root
}
