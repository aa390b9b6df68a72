package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ agent.TeamStore = (*DB)(nil)

// TeamNotes lists place's team notes in order, each with who last wrote it.
func (db *DB) TeamNotes(ctx context.Context, place string) ([]agent.TeamNote, error) {
	rows, err := db.pool.Query(ctx, `SELECT content, author FROM team_notes WHERE place = $1 ORDER BY id`, place)
	if err != nil {
		return nil, fmt.Errorf("postgres: team notes of %q: %w", place, err)
	}
	notes := []agent.TeamNote{}
	var n agent.TeamNote
	if _, err := pgx.ForEachRow(rows, []any{&n.Content, &n.Author}, func() error {
		notes = append(notes, n)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: team notes of %q: %w", place, err)
	}
	return notes, nil
}

// EditTeamNotes replaces place's notes with what edit makes of them, in one
// transaction, as EditMemory does a person's list (an advisory lock on the
// place serializes the read-modify-write, since an empty list has no rows
// to lock): notes edit left alone keep their row and author; those it adds
// or changes are author's.
func (db *DB) EditTeamNotes(ctx context.Context, place, author string, edit func(notes []string) ([]string, error)) error {
	if place == "" || author == "" {
		return errors.New("postgres: team notes need a place and an author")
	}
	now := ts(db.now())
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, "team", place); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, content FROM team_notes WHERE place = $1 ORDER BY id`, place)
		if err != nil {
			return err
		}
		var old []rowdata.MemoryEntry
		var e rowdata.MemoryEntry
		if _, err := pgx.ForEachRow(rows, []any{&e.ID, &e.Content}, func() error {
			old = append(old, e)
			return nil
		}); err != nil {
			return err
		}
		p, err := rowdata.PlanEdit(old, edit)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		if len(p.Delete) > 0 {
			b.Queue(`DELETE FROM team_notes WHERE id = ANY($1)`, p.Delete)
		}
		for _, u := range p.Update {
			b.Queue(`UPDATE team_notes SET content = $1, author = $2, updated_at = $3 WHERE id = $4`, u.Content, author, now, u.ID)
		}
		for _, content := range p.Insert {
			b.Queue(`INSERT INTO team_notes (place, content, author, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)`,
				place, content, author, now)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if e, ok := rowdata.AsEdited(err); ok {
		return e
	}
	if err != nil {
		return fmt.Errorf("postgres: edit team notes of %q: %w", place, err)
	}
	return nil
}
