package main

import (
	"context"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// `parley skills`: the deployment's skills, in the store (docs/evolution.md).

func newSkillsCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "What Parley has learnt or was given: ls, export, import, add, rm", Args: cobra.NoArgs}
	cmd.AddCommand(&cobra.Command{
		Use:   "ls",
		Short: "List every scope's skills with their origin and their invocation, edit-after-hit and ineffective rates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			_, db, err := skillsStore(ctx, e, load)
			if err != nil {
				return err
			}
			defer db.Close()
			scopes, err := db.SkillScopes(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SCOPE\tSKILL\tORIGIN\tUPDATED\tPATCHES\tIMPRESSIONS\tINVOKED\tEDIT-AFTER-HIT\tINEFFECTIVE")
			n := 0
			for _, scope := range scopes {
				skills, err := db.ListSkills(ctx, scope)
				if err != nil {
					return err
				}
				for _, s := range skills {
					r, err := db.SkillRates(ctx, scope, s.Name)
					if err != nil {
						return err
					}
					n++
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%.0f%%\t%.0f%%\t%.0f%%\n", scope, s.Name, originOf(s.Origin), s.UpdatedAt.Local().Format("2006-01-02"),
						s.PatchCount, r.Impressions, 100*r.InvocationRate(), 100*r.EditAfterHitRate(), 100*r.IneffectiveRate())
				}
			}
			tw.Flush()
			fmt.Fprintf(e.stdout, "%d skill(s) in the store\n", n)
			return nil
		},
	})
	cmd.AddCommand(newSkillsExportCmd(e, load), newSkillsImportCmd(e, load), newSkillsAddCmd(e, load), newSkillsRmCmd(e, load))
	return cmd
}

// skillsStore is commandStore for the skills commands, with the skill
// files an earlier build left imported first (as at start), so that the
// first command after an upgrade sees them.
func skillsStore(ctx context.Context, e *environment, load func() (*config.Config, error)) (*config.Config, backend, error) {
	cfg, db, err := commandStore(ctx, load)
	if err != nil {
		return nil, nil, err
	}
	if err := importSkillFiles(ctx, legacySkillFiles(cfg), db, cfg.AgentNames(), cfg.Log.Logger(e.stderr, slog.LevelWarn)); err != nil {
		db.Close()
		return nil, nil, err
	}
	return cfg, db, nil
}

// originOf is a skill's origin as listed: where it was installed from, or
// "learnt" for one reflection wrote.
func originOf(origin string) string {
	if origin == "" {
		return "learnt"
	}
	return origin
}
