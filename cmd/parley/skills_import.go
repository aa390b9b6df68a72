package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"

	"github.com/parleybot/parley/agent/evolve"
)

// importSkillFiles moves the skill files of an earlier build
// (<data_dir>/skills/<scope>/<slug>.md) into the store, once: each skill a
// scope does not hold yet under its slug is stored as it was (dates, patch
// count, last use), then the folder is renamed <dir>.imported, so the next
// start finds nothing to import and the files stay for a person to read.
// A replica with its own data_dir imports its own files; a skill another
// replica imported first is left as that one stored it. Their history was
// already in the store (learning_revisions).
func importSkillFiles(ctx context.Context, files evolve.SkillFiles, db evolve.SkillStore, agents []string, logger *slog.Logger) error {
	dirs, err := os.ReadDir(files.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("import skill files: %w", err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		scope := scopeOfDir(d.Name(), agents)
		skills, err := files.ListSkills(ctx, scope)
		if err != nil {
			// A file that does not parse is left behind, said once.
			logger.Warn("skill files: some were not imported", "scope", scope, "err", err)
		}
		have, err := db.ListSkills(ctx, scope)
		if err != nil {
			return fmt.Errorf("import skill files: %w", err)
		}
		for _, s := range skills {
			if slices.ContainsFunc(have, func(h evolve.Skill) bool { return h.Slug == s.Slug }) {
				continue
			}
			if err := db.PutSkill(ctx, scope, s); err != nil {
				return fmt.Errorf("import skill files: %w", err)
			}
			n++
		}
	}
	done := files.Dir + ".imported"
	if err := os.Rename(files.Dir, done); err != nil {
		return fmt.Errorf("import skill files: %w", err)
	}
	logger.Info("skills: imported the skill files into the store, once; the files are kept", "skills", n, "from", files.Dir, "kept_in", done)
	return nil
}
