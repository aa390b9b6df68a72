package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ agent.MemoryStore = (*DB)(nil)

// Memory returns what is remembered about the user keyed userKey ("platform:id");
// a user with nothing remembered gets an empty Memory.
func (db *DB) Memory(ctx context.Context, userKey string) (agent.Memory, error) {
	var m agent.Memory
	rows, err := db.r.QueryContext(ctx, `
		SELECT target, content FROM memory_entries
		WHERE user_key = ? ORDER BY target, id`, userKey)
	if err != nil {
		return m, fmt.Errorf("store: memory of %q: %w", userKey, err)
	}
	defer rows.Close()
	for rows.Next() {
		var target, content string
		if err := rows.Scan(&target, &content); err != nil {
			return agent.Memory{}, fmt.Errorf("store: memory of %q: %w", userKey, err)
		}
		rowdata.AddToMemory(&m, target, content)
	}
	if err := rows.Err(); err != nil {
		return agent.Memory{}, fmt.Errorf("store: memory of %q: %w", userKey, err)
	}
	return m, nil
}

// EditMemory replaces the entries of one of a user's memory lists with what
// edit makes of them, in one transaction: concurrent edits, from this process
// or another, apply one after the other and none is lost. An error from edit
// aborts the transaction and is returned as is. edit runs under the write
// lock, so it must be quick; it may modify the slice it is given.
//
// Entries edit left alone keep their identity (row id and created_at): an
// appended entry is inserted, a replaced one updated in place, a removed one
// deleted. Only an edit that both adds and reorders rewrites the entries
// from the first change on.
func (db *DB) EditMemory(ctx context.Context, userKey string, target agent.MemoryTarget, edit func(entries []string) ([]string, error)) error {
	if err := rowdata.CheckMemoryEdit(userKey, target); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	now := millis(db.now())
	err := db.write(ctx, func(tx *sql.Tx) error {
		old, err := memoryEntries(ctx, tx, userKey, target)
		if err != nil {
			return err
		}
		plan, err := rowdata.PlanEdit(old, edit)
		if err != nil {
			return err
		}
		if plan.Empty() {
			return nil
		}
		// The users row must exist before an entry can reference it.
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO users (key, platform, created_at, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (key) DO NOTHING`,
			userKey, rowdata.PlatformOf(userKey), now, now,
		); err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		return applyPlan(ctx, tx, plan, userKey, target, now)
	})
	if e, ok := rowdata.AsEdited(err); ok {
		return e
	}
	if err != nil {
		return fmt.Errorf("store: edit %s memory of %q: %w", target, userKey, err)
	}
	return nil
}

func memoryEntries(ctx context.Context, tx *sql.Tx, userKey string, target agent.MemoryTarget) ([]rowdata.MemoryEntry, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT id, content FROM memory_entries
		WHERE user_key = ? AND target = ? ORDER BY id`, userKey, string(target))
	return scanEntries(rows, err)
}

// scanEntries reads the id and content of each row a query of a list's
// entries returned (memory_entries, team_notes); err is the query's.
func scanEntries(rows *sql.Rows, err error) ([]rowdata.MemoryEntry, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var entries []rowdata.MemoryEntry
	for rows.Next() {
		var e rowdata.MemoryEntry
		if err := rows.Scan(&e.ID, &e.Content); err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, rows.Err()
}

// applyPlan runs the plan's statements: deletions, updates, then inserts
// in list order, so that new rows get ascending ids.
func applyPlan(ctx context.Context, tx *sql.Tx, p rowdata.MemoryPlan, userKey string, target agent.MemoryTarget, now int64) error {
	for _, id := range p.Delete {
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_entries WHERE id = ?`, id); err != nil {
			return fmt.Errorf("delete entry: %w", err)
		}
	}
	for _, e := range p.Update {
		if _, err := tx.ExecContext(ctx,
			`UPDATE memory_entries SET content = ?, updated_at = ? WHERE id = ?`, e.Content, now, e.ID,
		); err != nil {
			return fmt.Errorf("update entry: %w", err)
		}
	}
	for _, content := range p.Insert {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO memory_entries (user_key, target, content, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?)`, userKey, string(target), content, now, now,
		); err != nil {
			return fmt.Errorf("insert entry: %w", err)
		}
	}
	return nil
}
