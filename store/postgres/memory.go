package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent"
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
		switch agent.MemoryTarget(target) {
		case agent.Profile:
			m.Profile = append(m.Profile, content)
		case agent.Facts:
			m.Facts = append(m.Facts, content)
		}
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
	if userKey == "" {
		return errors.New("postgres: edit memory: no user key")
	}
	if _, err := agent.ParseMemoryTarget(string(target)); err != nil {
		return fmt.Errorf("postgres: edit memory of %q: %w", userKey, err)
	}
	now := ts(db.now())
	var editErr error
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, "memory", userKey, string(target)); err != nil {
			return err
		}
		old, err := memoryEntries(ctx, tx, userKey, target)
		if err != nil {
			return err
		}
		contents := make([]string, len(old))
		for i, e := range old {
			contents[i] = e.content
		}
		next, err := edit(contents)
		if err != nil {
			editErr = err
			return err
		}
		plan := planEdit(old, next)
		if plan.empty() {
			return nil
		}
		// The users row must exist before an entry can reference it.
		if _, err := tx.Exec(ctx, `
			INSERT INTO users (key, platform, created_at, updated_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (key) DO NOTHING`,
			userKey, platformOf(userKey), now,
		); err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		return plan.apply(ctx, tx, userKey, target, now)
	})
	if editErr != nil {
		return editErr
	}
	if err != nil {
		return fmt.Errorf("postgres: edit %s memory of %q: %w", target, userKey, err)
	}
	return nil
}

// memoryEntry is one stored entry of a memory list.
type memoryEntry struct {
	id      int64
	content string
}

func memoryEntries(ctx context.Context, tx pgx.Tx, userKey string, target agent.MemoryTarget) ([]memoryEntry, error) {
	rows, err := tx.Query(ctx, `
		SELECT id, content FROM memory_entries
		WHERE user_key = $1 AND target = $2 ORDER BY id`, userKey, string(target))
	if err != nil {
		return nil, err
	}
	var entries []memoryEntry
	var e memoryEntry
	_, err = pgx.ForEachRow(rows, []any{&e.id, &e.content}, func() error {
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// memoryPlan is the set of row changes that turns a stored list into an
// edited one. Deletions run first, then updates, then inserts in list
// order.
type memoryPlan struct {
	del    []int64
	update []memoryEntry // id with its new content
	insert []string
}

func (p memoryPlan) empty() bool {
	return len(p.del) == 0 && len(p.update) == 0 && len(p.insert) == 0
}

// planEdit works out the row changes from old to next, as store does: a
// list's order is its row ids' order and new rows get ids above every
// existing one, so a new entry can be inserted only at the end. It trims
// the common prefix and suffix; in between, as many entries as before are
// updated in place, none left are deleted, none before and nothing after
// are inserted, and anything else is rewritten from the first difference.
func planEdit(old []memoryEntry, next []string) memoryPlan {
	n := min(len(old), len(next))
	pre := 0
	for pre < n && old[pre].content == next[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && old[len(old)-1-suf].content == next[len(next)-1-suf] {
		suf++
	}
	oldMid, newMid := old[pre:len(old)-suf], next[pre:len(next)-suf]

	var p memoryPlan
	switch {
	case len(oldMid) == len(newMid):
		for i, e := range oldMid {
			if e.content != newMid[i] {
				p.update = append(p.update, memoryEntry{e.id, newMid[i]})
			}
		}
	case len(newMid) == 0:
		for _, e := range oldMid {
			p.del = append(p.del, e.id)
		}
	case len(oldMid) == 0 && suf == 0:
		p.insert = slices.Clone(newMid)
	default:
		for _, e := range old[pre:] {
			p.del = append(p.del, e.id)
		}
		p.insert = slices.Clone(next[pre:])
	}
	return p
}

// apply runs the plan's statements in one round trip, in order: inserts
// get ascending ids in list order.
func (p memoryPlan) apply(ctx context.Context, tx pgx.Tx, userKey string, target agent.MemoryTarget, now time.Time) error {
	b := &pgx.Batch{}
	if len(p.del) > 0 {
		b.Queue(`DELETE FROM memory_entries WHERE id = ANY($1)`, p.del)
	}
	for _, e := range p.update {
		b.Queue(`UPDATE memory_entries SET content = $1, updated_at = $2 WHERE id = $3`, e.content, now, e.id)
	}
	for _, content := range p.insert {
		b.Queue(`
			INSERT INTO memory_entries (user_key, target, content, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`, userKey, string(target), content, now)
	}
	return tx.SendBatch(ctx, b).Close()
}
