package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/webconsole"
)

// parley skills export, import, add and rm: skills to and from folders in
// the open Agent Skills format (docs/evolution.md).

// skillScopeFlag is --scope: one scope's key; add, import and rm default to
// the operator's, which every conversation sees.
func skillScopeFlag(cmd *cobra.Command, scope *string, def string) {
	cmd.Flags().StringVar(scope, "scope", def, "the scope: operator, space:<platform>:<id>, person:<platform>:<user id> (agent:<name>: before any)")
}

func checkScope(scope string) error {
	if _, err := bot.ParseScope(scope); err != nil {
		return fmt.Errorf("--scope: %w", err)
	}
	return nil
}

func newSkillsExportCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "export [--scope S] DIR",
		Short: "Write skills as folders in the open Agent Skills format (DIR/<scope>/<skill>/SKILL.md; with --scope, DIR/<skill>/)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			_, db, err := skillsStore(ctx, e, load)
			if err != nil {
				return err
			}
			defer db.Close()
			scopes := []string{scope}
			if scope == "" {
				if scopes, err = db.SkillScopes(ctx); err != nil {
					return err
				}
			} else if err := checkScope(scope); err != nil {
				return err
			}
			n := 0
			for _, sc := range scopes {
				dir := args[0]
				if scope == "" {
					dir = filepath.Join(dir, evolve.SkillFiles{}.ScopeDir(sc))
				}
				skills, err := db.ListSkills(ctx, sc)
				if err != nil {
					return err
				}
				for _, s := range skills {
					if err := evolve.WriteSkillFolder(dir, s); err != nil {
						return err
					}
					n++
				}
			}
			fmt.Fprintf(e.stdout, "%d skill(s) written to %s\n", n, args[0])
			return nil
		},
	}
	skillScopeFlag(cmd, &scope, "")
	return cmd
}

func newSkillsImportCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use: "import [--scope S] DIR",
		Short: "Read skills back from folders in the open Agent Skills format, through the memory guard " +
			"(a skill folder, a folder of them, or an export's folder of scopes)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return installSkills(cmd.Context(), e, load, scope, func(cfg *config.Config) ([]placedSkill, error) {
				return skillFolders(args[0], scope, cfg.AgentNames())
			}, "skill.import")
		},
	}
	skillScopeFlag(cmd, &scope, "")
	return cmd
}

func newSkillsAddCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use: "add [--scope S] PATH|URL",
		Short: "Install one skill in the open Agent Skills format: a folder with SKILL.md, or a SKILL.md's URL; " +
			"its scripts are kept, never run on install",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return installSkills(cmd.Context(), e, load, scope, func(*config.Config) ([]placedSkill, error) {
				src, err := newSkillSource()
				if err != nil {
					return nil, err
				}
				s, err := src.read(cmd.Context(), args[0])
				return []placedSkill{{scope, s}}, err
			}, "skill.install")
		},
	}
	skillScopeFlag(cmd, &scope, bot.OperatorScope().Key())
	return cmd
}

func newSkillsRmCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "rm [--scope S] NAME",
		Short: "Remove a skill (learnt or installed); /skills history can put it back",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := checkScope(scope); err != nil {
				return err
			}
			cfg, db, err := skillsStore(ctx, e, load)
			if err != nil {
				return err
			}
			defer db.Close()
			skills := skillBook(cfg, db)
			s, err := skills.Get(ctx, scope, args[0])
			if err != nil {
				return err
			}
			if err := db.AddRevision(ctx, evolve.Revision{Scope: scope, Kind: "skill", Name: s.Slug, Action: "removed", Before: string(s.Marshal()), At: time.Now()}); err != nil {
				return err
			}
			if err := skills.Delete(ctx, scope, s.Name); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: removed %q\n", scope, s.Name)
			return db.Audit(ctx, bot.AuditEntry{At: time.Now(), Actor: webconsole.Operator, Action: "skill.forget", Target: scope, Detail: s.Name, Via: "cli"})
		},
	}
	skillScopeFlag(cmd, &scope, bot.OperatorScope().Key())
	return cmd
}

// placedSkill is a skill read from a folder and the scope it goes to.
type placedSkill struct {
	scope string
	skill evolve.Skill
}

// installSkills installs what read finds, each through reflection's guard
// (its judge included, so the model's configuration is needed), each
// audited as action.
func installSkills(ctx context.Context, e *environment, load func() (*config.Config, error), scope string,
	read func(*config.Config) ([]placedSkill, error), action string) error {
	if scope != "" {
		if err := checkScope(scope); err != nil {
			return err
		}
	}
	cfg, err := load()
	if err != nil {
		return err
	}
	found, err := read(cfg)
	if err != nil {
		return err
	}
	a, err := openApp(ctx, cfg, cfg.Log.Logger(e.stderr, slog.LevelWarn))
	if err != nil {
		return err
	}
	defer a.Close()
	x, err := a.reflector()
	if err != nil {
		return err
	}
	for _, p := range found {
		c, err := x.Install(ctx, p.scope, p.skill)
		if err != nil {
			return fmt.Errorf("%s: %q: %w", p.scope, p.skill.Name, err)
		}
		fmt.Fprintf(e.stdout, "%s: %s %q (%s)\n", p.scope, c.Action, c.Skill, originOf(p.skill.Origin))
		if err := a.db.Audit(ctx, bot.AuditEntry{At: time.Now(), Actor: webconsole.Operator, Action: action, Target: p.scope,
			Detail: c.Skill + " from " + originOf(p.skill.Origin), Via: "cli"}); err != nil {
			return err
		}
	}
	return nil
}

// skillFolders reads the skills under dir: dir itself when it holds a
// SKILL.md; else each folder in it that does, into scope (the operator's
// when ""); else, with no scope given, an export's scope folders.
func skillFolders(dir, scope string, agents []string) ([]placedSkill, error) {
	into := scope
	if into == "" {
		into = bot.OperatorScope().Key()
	}
	if isSkillFolder(dir) {
		s, err := evolve.ReadSkillFolder(os.DirFS(dir))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		return []placedSkill{{into, s}}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	var out []placedSkill
	for _, d := range entries {
		sub := filepath.Join(dir, d.Name())
		switch {
		case !d.IsDir():
			continue
		case isSkillFolder(sub):
			s, err := evolve.ReadSkillFolder(os.DirFS(sub))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sub, err)
			}
			out = append(out, placedSkill{into, s})
		case scope == "":
			inner, err := skillFolders(sub, scopeOfDir(d.Name(), agents), agents)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no skill folder (a folder with SKILL.md) in it", dir)
	}
	return out, nil
}

// isSkillFolder: dir holds a SKILL.md (a link is not followed: it is
// ReadSkillFolder's to refuse).
func isSkillFolder(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "SKILL.md"))
	return err == nil
}
