package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Memory returns what is remembered about the user keyed userKey
// ("platform:id"); a user with nothing remembered gets an empty Memory.
func (db *DB) Memory(ctx context.Context, userKey string) (agent.Memory, error) {
	var m agent.Memory
	rows, err := db.pool.Query(ctx, `
		SELECT target, content FROM memory_entries
		WHERE user_key = $1 ORDER BY target, id`, userKey)
	if err != nil {
		return m, fmt.Errorf("postgres: memory of %q: %w", userKey, err)
	}
	var target, content string
	if _, err := pgx.ForEachRow(rows, []any{&target, &content}, func() error {
		rowdata.AddToMemory(&m, target, content)
		return nil
	}); err != nil {
		return agent.Memory{}, fmt.Errorf("postgres: memory of %q: %w", userKey, err)
	}
	return m, nil
}

// EditMemory replaces the entries of one of a user's memory lists with what
// edit makes of them, in one transaction: concurrent edits, from this
// process or another, apply one after the other and none is lost. An error
// from edit aborts the transaction and is returned as is. edit runs while
// the list is locked, so it must be quick; it may modify the slice it is
// given.
//
// Entries edit left alone keep their identity (row id and created_at), as
// in store.
//
// Where SQLite's write lock serialized the read-modify-write, here a
// transaction-scoped advisory lock on (user, list) does: SELECT … FOR
// UPDATE could lock only entries that exist, so two first edits of an
// empty list would both read it empty and one's entries would be lost.
func (db *DB) EditMemory(ctx context.Context, userKey string, target agent.MemoryTarget, edit func(entries []string) ([]string, error)) error {
	if err := rowdata.CheckMemoryEdit(userKey, target); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	now := ts(db.now())
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, "memory", userKey, string(target)); err != nil {
			return err
		}
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
		if _, err := tx.Exec(ctx, `
			INSERT INTO users (key, platform, created_at, updated_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (key) DO NOTHING`,
			userKey, rowdata.PlatformOf(userKey), now,
		); err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		return applyPlan(ctx, tx, plan, userKey, target, now)
	})
	if e, ok := rowdata.AsEdited(err); ok {
		return e
	}
	if err != nil {
		return fmt.Errorf("postgres: edit %s memory of %q: %w", target, userKey, err)
	}
	return nil
}

func memoryEntries(ctx context.Context, tx pgx.Tx, userKey string, target agent.MemoryTarget) ([]rowdata.MemoryEntry, error) {
	rows, err := tx.Query(ctx, `
		SELECT id, content FROM memory_entries
		WHERE user_key = $1 AND target = $2 ORDER BY id`, userKey, string(target))
	if err != nil {
		return nil, err
	}
	var entries []rowdata.MemoryEntry
	var e rowdata.MemoryEntry
	_, err = pgx.ForEachRow(rows, []any{&e.ID, &e.Content}, func() error {
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// applyPlan runs the plan's statements in one round trip, in order: inserts
// get ascending ids in list order.
func applyPlan(ctx context.Context, tx pgx.Tx, p rowdata.MemoryPlan, userKey string, target agent.MemoryTarget, now time.Time) error {
	b := &pgx.Batch{}
	if len(p.Delete) > 0 {
		b.Queue(`DELETE FROM memory_entries WHERE id = ANY($1)`, p.Delete)
	}
	for _, e := range p.Update {
		b.Queue(`UPDATE memory_entries SET content = $1, updated_at = $2 WHERE id = $3`, e.Content, now, e.ID)
	}
	for _, content := range p.Insert {
		b.Queue(`
			INSERT INTO memory_entries (user_key, target, content, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`, userKey, string(target), content, now)
	}
	return tx.SendBatch(ctx, b).Close()
}
