package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// parley agents ls: the agents (docs/agents.md), each with its model and
// tools, and the bindings, the configured ones and those admins made in
// chat with /agent use. parley agents export: the same bindings as the
// bindings: block of a configuration file.

func newAgentsCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "The agents and the places bound to them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fmt.Errorf("say what to do: parley agents ls, or parley agents export")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use: "ls", Short: "List the agents and the bindings (configured, and made in chat with /agent use)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, stored, err := storedBindings(cmd.Context(), load)
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
	cmd.AddCommand(&cobra.Command{
		Use: "export", Short: "Print the bindings, those made in chat with /agent use included, as a configuration's bindings: block", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, stored, err := storedBindings(cmd.Context(), load)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.stdout, bindingsYAML(cfg, stored))
			return err
		},
	})
	return cmd
}

// storedBindings are the configuration and the bindings admins made in
// chat (bot.StoredBindings), read from its store.
func storedBindings(ctx context.Context, load func() (*config.Config, error)) (*config.Config, map[string]string, error) {
	cfg, db, err := commandStore(ctx, load)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	stored, err := bot.StoredBindings(ctx, db)
	return cfg, stored, err
}

// madeInChat marks a binding an admin made with /agent use.
const madeInChat = "# made in chat with /agent use"

// bindingsYAML is the bindings: block of a configuration file that binds
// what cfg's bindings and stored (made in chat) do together, for an
// operator to paste over the file's: the configured bindings, then the
// stored ones, each marked. What would not load is left as a comment: a
// configured binding a stored one replaces (of the same place: the stored
// one wins, and a place is bound once), a stored one whose agent is gone.
func bindingsYAML(cfg *config.Config, stored map[string]string) string {
	var b strings.Builder
	b.WriteString("bindings:")
	if len(cfg.Bindings)+len(stored) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	line := func(place, agent string) string {
		return fmt.Sprintf("{place: %s, agent: %s}", strconv.Quote(place), agent)
	}
	for _, bd := range cfg.Bindings {
		place := bd.Place
		if p, err := chat.ParsePlaceSet(bd.Place); err == nil { // Load checked it
			place = p.String()
		}
		if _, ok := stored[place]; ok {
			fmt.Fprintf(&b, "  # - %s  # replaced in chat with /agent use, below\n", line(bd.Place, bd.Agent))
			continue
		}
		fmt.Fprintf(&b, "  - %s\n", line(bd.Place, bd.Agent))
	}
	for _, place := range slices.Sorted(maps.Keys(stored)) {
		agent := stored[place]
		if !slices.Contains(cfg.AgentNames(), agent) {
			fmt.Fprintf(&b, "  # - %s  %s; there is no agent %s now\n", line(place, strconv.Quote(agent)), madeInChat, strconv.Quote(agent))
			continue
		}
		fmt.Fprintf(&b, "  - %s  %s\n", line(place, agent), madeInChat)
	}
	return b.String()
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
