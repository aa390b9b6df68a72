package evolve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SkillFiles is the form skills had before the store: Markdown files per
// scope, <Dir>/<scope>/<slug>.md. The running binary imports them into the
// store once at start (cmd/parley); tests use it as a SkillStore on disk.
type SkillFiles struct {
	Dir string
}

var _ SkillStore = SkillFiles{}

// ScopeDir is where a scope's skills live: the scope key with ':' as '_'
// ("space_slack_T012"), so the folder name is portable.
func (f SkillFiles) ScopeDir(scope string) string {
	return filepath.Join(f.Dir, strings.ReplaceAll(scope, ":", "_"))
}

// ListSkills reads a scope's skills. A file that does not parse is
// skipped and reported in the error beside the others, so one bad hand
// edit hides only itself.
func (f SkillFiles) ListSkills(_ context.Context, scope string) ([]Skill, error) {
	entries, err := os.ReadDir(f.ScopeDir(scope))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("skills of %q: %w", scope, err)
	}
	var skills []Skill
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(f.ScopeDir(scope), e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s, err := ParseSkill(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name(), err))
			continue
		}
		s.Slug = strings.TrimSuffix(e.Name(), ".md")
		skills = append(skills, s)
	}
	return skills, errors.Join(errs...)
}

// PutSkill writes a skill's file atomically (a temporary file renamed), so
// a crash leaves the old version or the new, never half of one.
func (f SkillFiles) PutSkill(_ context.Context, scope string, s Skill) error {
	if s.Slug == "" || strings.ContainsAny(s.Slug, `/\`) || strings.HasPrefix(s.Slug, ".") {
		return fmt.Errorf("skill file: bad slug %q", s.Slug)
	}
	dir := f.ScopeDir(scope)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".skill-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(s.Marshal()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, s.Slug+".md"))
}

// DeleteSkill removes a skill's file.
func (f SkillFiles) DeleteSkill(_ context.Context, scope, slug string) error {
	err := os.Remove(filepath.Join(f.ScopeDir(scope), slug+".md"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
