package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ agent.TeamStore = (*DB)(nil)

// TeamNotes lists place's team notes in order, each with who last wrote it.
func (db *DB) TeamNotes(ctx context.Context, place string) ([]agent.TeamNote, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT content, author FROM team_notes WHERE place = ? ORDER BY id`, place)
	if err != nil {
		return nil, fmt.Errorf("store: team notes of %q: %w", place, err)
	}
	defer rows.Close()
	notes := []agent.TeamNote{}
	for rows.Next() {
		var n agent.TeamNote
		if err := rows.Scan(&n.Content, &n.Author); err != nil {
			return nil, fmt.Errorf("store: team notes of %q: %w", place, err)
		}
		notes = append(notes, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: team notes of %q: %w", place, err)
	}
	return notes, nil
}

// EditTeamNotes replaces place's notes with what edit makes of them, in one
// transaction under the write lock, as EditMemory does a person's list:
// notes edit left alone keep their row and author; those it adds or
// changes are author's.
func (db *DB) EditTeamNotes(ctx context.Context, place, author string, edit func(notes []string) ([]string, error)) error {
	if place == "" || author == "" {
		return errors.New("store: team notes need a place and an author")
	}
	now := millis(db.now())
	err := db.write(ctx, func(tx *sql.Tx) error {
		old, err := teamEntries(ctx, tx, place)
		if err != nil {
			return err
		}
		p, err := rowdata.PlanEdit(old, edit)
		if err != nil {
			return err
		}
		for _, id := range p.Delete {
			if _, err := tx.ExecContext(ctx, `DELETE FROM team_notes WHERE id = ?`, id); err != nil {
				return fmt.Errorf("delete note: %w", err)
			}
		}
		for _, e := range p.Update {
			if _, err := tx.ExecContext(ctx, `UPDATE team_notes SET content = ?, author = ?, updated_at = ? WHERE id = ?`,
				e.Content, author, now, e.ID); err != nil {
				return fmt.Errorf("update note: %w", err)
			}
		}
		for _, content := range p.Insert {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO team_notes (place, content, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
				place, content, author, now, now); err != nil {
				return fmt.Errorf("insert note: %w", err)
			}
		}
		return nil
	})
	if e, ok := rowdata.AsEdited(err); ok {
		return e
	}
	if err != nil {
		return fmt.Errorf("store: edit team notes of %q: %w", place, err)
	}
	return nil
}

func teamEntries(ctx context.Context, tx *sql.Tx, place string) ([]rowdata.MemoryEntry, error) {
	return scanEntries(tx.QueryContext(ctx, `SELECT id, content FROM team_notes WHERE place = ? ORDER BY id`, place))
}
