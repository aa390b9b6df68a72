package main

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// `parley reflect` and `parley skills`: the operator's side of learning
// from use (docs/evolution.md).

func newReflectCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	var force bool
	cmd := &cobra.Command{
		Use:   "reflect [--scope S] [--force]",
		Short: "Run one reflection cycle now and print what it created, patched or deleted",
		Long: "Runs one cycle of learning from use: the scopes whose runs are worth it (a correction, a recovered error…)\n" +
			"and that have anything new since they last reflected. --force reflects on every scope with anything new,\n" +
			"whatever its score or cooldown; --scope only on that one.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			if !cfg.Evolution.Enabled {
				return fmt.Errorf("learning from use is off (evolution.enabled: false)")
			}
			if scope != "" {
				s, err := bot.ParseScope(scope)
				if err != nil {
					return err
				}
				scope = s.Key()
			}
			a, err := openApp(cmd.Context(), cfg, cfg.Log.Logger(e.stderr, slog.LevelWarn))
			if err != nil {
				return err
			}
			defer a.Close()
			s, err := a.scheduler(cfg.Log.Logger(e.stderr, slog.LevelWarn))
			if err != nil {
				return err
			}
			done := s.Cycle(cmd.Context(), time.Now(), scope, force)
			if len(done) == 0 {
				fmt.Fprintln(e.stdout, "nothing to reflect on: no scope has a run worth it and anything new since it last reflected (--force to reflect anyway)")
				return nil
			}
			failed, calls, tokens := 0, 0, 0
			for _, r := range done {
				switch {
				case errors.Is(r.Err, evolve.ErrBudget):
					fmt.Fprintf(e.stdout, "%s: cut short: %v\n", r.Scope, r.Err)
				case r.Err != nil:
					failed++
					fmt.Fprintf(e.stdout, "%s: failed: %v\n", r.Scope, r.Err)
				case len(r.Changes) == 0:
					fmt.Fprintf(e.stdout, "%s: nothing to save\n", r.Scope)
				}
				for _, c := range r.Changes {
					fmt.Fprintf(e.stdout, "%s: %s %q\n", r.Scope, c.Action, c.Skill)
				}
				calls, tokens = calls+r.Calls, tokens+r.Tokens
			}
			fmt.Fprintf(e.stdout, "cost: %d model calls, %d tokens, %d scope(s)\n", calls, tokens, len(done))
			if failed > 0 {
				return exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", "only this scope: operator, space:<platform>:<id> or person:<platform>:<user id>")
	cmd.Flags().BoolVar(&force, "force", false, "reflect on every scope with anything new, whatever its score or cooldown")
	return cmd
}

// scopeOfDir is the scope key whose skills are in folder dir
// (evolve.SkillFiles.ScopeDir writes ':' as '_'). An agent's name may
// hold '_' itself, so a named agent's part of a scope ("agent_my_bot_…")
// is read by the configured names, the longest first.
func scopeOfDir(dir string, agents []string) string {
	if rest, ok := strings.CutPrefix(dir, "agent_"); ok {
		longest := slices.SortedFunc(slices.Values(agents), func(a, b string) int { return len(b) - len(a) })
		for _, name := range longest {
			if base, ok := strings.CutPrefix(rest, name+"_"); ok {
				return "agent:" + name + ":" + strings.ReplaceAll(base, "_", ":")
			}
		}
	}
	return strings.ReplaceAll(dir, "_", ":")
}
