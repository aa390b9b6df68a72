package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ evolve.SkillStore = (*DB)(nil)

// ListSkills is scope's skills, by name.
func (db *DB) ListSkills(ctx context.Context, scope string) ([]evolve.Skill, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT slug, name, description, body, origin, files, patch_count, created_at, updated_at, last_used_at
		FROM skills WHERE scope = ? ORDER BY name, slug`, scope)
	if err != nil {
		return nil, fmt.Errorf("store: skills of %q: %w", scope, err)
	}
	defer rows.Close()
	var out []evolve.Skill
	for rows.Next() {
		var s evolve.Skill
		var files string
		var created, updated, used int64
		if err := rows.Scan(&s.Slug, &s.Name, &s.Description, &s.Body, &s.Origin, &files, &s.PatchCount, &created, &updated, &used); err != nil {
			return nil, fmt.Errorf("store: skills of %q: %w", scope, err)
		}
		if s.Files, err = rowdata.ParseSkillFiles(files); err != nil {
			return nil, fmt.Errorf("store: skill %q of %q: %w", s.Slug, scope, err)
		}
		s.CreatedAt, s.UpdatedAt = fromMillis(created), fromMillis(updated)
		if used != 0 {
			s.LastUsedAt = fromMillis(used)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: skills of %q: %w", scope, err)
	}
	return out, nil
}

// PutSkill inserts s, or replaces the skill of its slug.
func (db *DB) PutSkill(ctx context.Context, scope string, s evolve.Skill) error {
	if scope == "" || s.Slug == "" || s.Name == "" {
		return fmt.Errorf("store: a skill needs a scope, a slug and a name")
	}
	files, err := rowdata.SkillFiles(s.Files)
	if err != nil {
		return fmt.Errorf("store: put skill %q: %w", s.Slug, err)
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO skills (scope, slug, name, description, body, origin, files, patch_count, created_at, updated_at, last_used_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (scope, slug) DO UPDATE SET name = excluded.name, description = excluded.description,
				body = excluded.body, origin = excluded.origin, files = excluded.files, patch_count = excluded.patch_count,
				created_at = excluded.created_at, updated_at = excluded.updated_at, last_used_at = excluded.last_used_at`,
			scope, s.Slug, s.Name, s.Description, s.Body, s.Origin, files, s.PatchCount,
			millis(s.CreatedAt), millis(s.UpdatedAt), optionalMillis(s.LastUsedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put skill %q of %q: %w", s.Slug, scope, err)
	}
	return nil
}

// DeleteSkill removes scope's skill slug; none is not an error.
func (db *DB) DeleteSkill(ctx context.Context, scope, slug string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM skills WHERE scope = ? AND slug = ?`, scope, slug)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete skill %q of %q: %w", slug, scope, err)
	}
	return nil
}

// SkillScopes lists the scopes that have skills.
func (db *DB) SkillScopes(ctx context.Context) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT DISTINCT scope FROM skills ORDER BY scope`)
	if err != nil {
		return nil, fmt.Errorf("store: skill scopes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("store: skill scopes: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: skill scopes: %w", err)
	}
	return out, nil
}
