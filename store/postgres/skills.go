package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ evolve.SkillStore = (*DB)(nil)

// ListSkills is scope's skills, by name.
func (db *DB) ListSkills(ctx context.Context, scope string) ([]evolve.Skill, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT slug, name, description, body, origin, files::text, patch_count, created_at, updated_at, last_used_at
		FROM skills WHERE scope = $1 ORDER BY name, slug`, scope)
	if err != nil {
		return nil, fmt.Errorf("postgres: skills of %q: %w", scope, err)
	}
	out, err := collect(rows, func(row rowScanner) (evolve.Skill, error) {
		var s evolve.Skill
		var files string
		var used *time.Time
		if err := row.Scan(&s.Slug, &s.Name, &s.Description, &s.Body, &s.Origin, &files, &s.PatchCount, &s.CreatedAt, &s.UpdatedAt, &used); err != nil {
			return s, err
		}
		s.CreatedAt, s.UpdatedAt, s.LastUsedAt = fromTS(s.CreatedAt), fromTS(s.UpdatedAt), fromOptTS(used)
		var err error
		s.Files, err = rowdata.ParseSkillFiles(files)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: skills of %q: %w", scope, err)
	}
	return out, nil
}

// PutSkill inserts s, or replaces the skill of its slug.
func (db *DB) PutSkill(ctx context.Context, scope string, s evolve.Skill) error {
	if scope == "" || s.Slug == "" || s.Name == "" {
		return fmt.Errorf("postgres: a skill needs a scope, a slug and a name")
	}
	files, err := rowdata.SkillFiles(s.Files)
	if err != nil {
		return fmt.Errorf("postgres: put skill %q: %w", s.Slug, err)
	}
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO skills (scope, slug, name, description, body, origin, files, patch_count, created_at, updated_at, last_used_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11)
		ON CONFLICT (scope, slug) DO UPDATE SET name = excluded.name, description = excluded.description,
			body = excluded.body, origin = excluded.origin, files = excluded.files, patch_count = excluded.patch_count,
			created_at = excluded.created_at, updated_at = excluded.updated_at, last_used_at = excluded.last_used_at`,
		scope, s.Slug, s.Name, s.Description, s.Body, s.Origin, files, s.PatchCount,
		ts(s.CreatedAt), ts(s.UpdatedAt), optTS(s.LastUsedAt)); err != nil {
		return fmt.Errorf("postgres: put skill %q of %q: %w", s.Slug, scope, err)
	}
	return nil
}

// DeleteSkill removes scope's skill slug; none is not an error.
func (db *DB) DeleteSkill(ctx context.Context, scope, slug string) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM skills WHERE scope = $1 AND slug = $2`, scope, slug); err != nil {
		return fmt.Errorf("postgres: delete skill %q of %q: %w", slug, scope, err)
	}
	return nil
}

// SkillScopes lists the scopes that have skills.
func (db *DB) SkillScopes(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT scope FROM skills ORDER BY scope`)
	if err != nil {
		return nil, fmt.Errorf("postgres: skill scopes: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (string, error) {
		var s string
		return s, row.Scan(&s)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: skill scopes: %w", err)
	}
	return out, nil
}
