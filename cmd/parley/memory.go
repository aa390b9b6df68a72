package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// parley memory show|export|erase --user platform:id: what Parley
// remembers about one person, for an operator answering that person's
// request about their data. The person themselves has /memory.

func newMemoryCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var user string
	var yes bool
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Show, export or erase what Parley remembers about one person (--user platform:id)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fmt.Errorf("say what to do: parley memory show|export|erase --user platform:id")
		},
	}
	cmd.PersistentFlags().StringVar(&user, "user", "", "the person, as platform:id (e.g. slack:U0123ABC, telegram:123456789)")
	with := func(run func(ctx context.Context, db agent.MemoryStore, key string) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, _ []string) error {
			key, err := memoryUser(user)
			if err != nil {
				return err
			}
			_, db, err := commandStore(cmd.Context(), load)
			if err != nil {
				return err
			}
			defer db.Close()
			return run(cmd.Context(), db, key)
		}
	}
	show := &cobra.Command{
		Use: "show", Short: "Print what Parley remembers about the person", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, db agent.MemoryStore, key string) error {
			m, err := db.Memory(ctx, key)
			if err != nil {
				return err
			}
			return printMemory(e.stdout, key, m)
		}),
	}
	export := &cobra.Command{
		Use: "export", Short: "Print what Parley remembers about the person as JSON", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, db agent.MemoryStore, key string) error {
			m, err := db.Memory(ctx, key)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(memoryExport{User: key, Profile: nonNil(m.Profile), Facts: nonNil(m.Facts)})
		}),
	}
	erase := &cobra.Command{
		Use: "erase", Short: "Erase everything Parley remembers about the person (asks first unless --yes)", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, db agent.MemoryStore, key string) error {
			m, err := db.Memory(ctx, key)
			if err != nil {
				return err
			}
			if m.Empty() {
				_, err := fmt.Fprintf(e.stdout, "Parley remembers nothing about %s.\n", key)
				return err
			}
			if !yes {
				if !e.terminal {
					return fmt.Errorf("erasing %d entries about %s: confirm with --yes", len(m.Profile)+len(m.Facts), key)
				}
				answer, err := newAsker(e, false).line(fmt.Sprintf("Erase %d entries about %s? Type yes", len(m.Profile)+len(m.Facts), key), "")
				if err != nil {
					return err
				}
				if answer != "yes" {
					_, err := fmt.Fprintln(e.stdout, "Nothing erased.")
					return err
				}
			}
			n, err := bot.EraseMemory(ctx, db, key)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "Erased %d entries about %s.\n", n, key)
			return err
		}),
	}
	erase.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask")
	cmd.AddCommand(show, export, erase)
	return cmd
}

// memoryExport is what parley memory export prints.
type memoryExport struct {
	User    string   `json:"user"`
	Profile []string `json:"profile"`
	Facts   []string `json:"facts"`
}

// memoryUser checks a --user value.
func memoryUser(user string) (string, error) {
	platform, id, ok := strings.Cut(strings.TrimSpace(user), ":")
	if !ok || platform == "" || id == "" || strings.ContainsAny(id, " \t\n") {
		return "", fmt.Errorf("--user %q: want platform:id, e.g. slack:U0123ABC or telegram:123456789", user)
	}
	return platform + ":" + id, nil
}

func printMemory(w io.Writer, key string, m agent.Memory) error {
	if m.Empty() {
		_, err := fmt.Fprintf(w, "Parley remembers nothing about %s.\n", key)
		return err
	}
	fmt.Fprintf(w, "What Parley remembers about %s:\n", key)
	for _, part := range []struct {
		name    string
		entries []string
	}{{"Profile", m.Profile}, {"Facts", m.Facts}} {
		fmt.Fprintf(w, "%s (%d):\n", part.name, len(part.entries))
		for _, s := range part.entries {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
