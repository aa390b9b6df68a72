package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// parley agents ls: the agents (docs/agents.md), each with its model and
// tools, and the bindings, the configured ones and those admins made in
// chat with /agent use.

func newAgentsCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "The agents and the places bound to them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fmt.Errorf("say what to do: parley agents ls")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use: "ls", Short: "List the agents and the bindings (configured, and made in chat with /agent use)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, db, err := commandStore(cmd.Context(), load)
			if err != nil {
				return err
			}
			defer db.Close()
			stored, err := bot.StoredBindings(cmd.Context(), db)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "AGENT\tMODEL\tFALLBACK\tTOOLS")
			for _, name := range cfg.AgentNames() {
				a := cfg.Agent(name)
				// What a switch takes that the configuration turns on.
				off := slices.DeleteFunc(a.ToolsOff(), func(t string) bool { return !slices.Contains(cfg.ToolNames(), t) })
				tools := "every enabled tool"
				switch {
				case a.Tools != nil:
					tools = listOrNone(slices.DeleteFunc(slices.Clone(a.Tools), func(t string) bool { return slices.Contains(off, t) }))
				case len(off) > 0:
					tools += " but " + strings.Join(off, ", ")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, a.Model, listOrNone(a.Fallback), tools)
			}
			fmt.Fprintln(tw, "\nPLACE\tAGENT\tFROM")
			for _, b := range cfg.Bindings {
				fmt.Fprintf(tw, "%s\t%s\tconfiguration\n", b.Place, b.Agent)
			}
			for _, place := range slices.Sorted(maps.Keys(stored)) {
				agent := stored[place]
				if agent != config.DefaultAgent && !slices.Contains(cfg.AgentNames(), agent) {
					agent += " (no such agent now: passed over)"
				}
				fmt.Fprintf(tw, "%s\t%s\t/agent use\n", place, agent)
			}
			if len(cfg.Bindings)+len(stored) == 0 {
				fmt.Fprintln(tw, "(none: the default agent answers everywhere)")
			}
			return tw.Flush()
		},
	})
	return cmd
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
