package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/agent"
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
		switch agent.MemoryTarget(target) {
		case agent.Profile:
			m.Profile = append(m.Profile, content)
		case agent.Facts:
			m.Facts = append(m.Facts, content)
		}
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
	if userKey == "" {
		return errors.New("store: edit memory: no user key")
	}
	if _, err := agent.ParseMemoryTarget(string(target)); err != nil {
		return fmt.Errorf("store: edit memory of %q: %w", userKey, err)
	}
	now := millis(db.now())
	var editErr error
	err := db.write(ctx, func(tx *sql.Tx) error {
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
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO users (key, platform, created_at, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (key) DO NOTHING`,
			userKey, platformOf(userKey), now, now,
		); err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		return plan.apply(ctx, tx, userKey, target, now)
	})
	if editErr != nil {
		return editErr
	}
	if err != nil {
		return fmt.Errorf("store: edit %s memory of %q: %w", target, userKey, err)
	}
	return nil
}

// memoryEntry is one stored entry of a memory list.
type memoryEntry struct {
	id      int64
	content string
}

func memoryEntries(ctx context.Context, tx *sql.Tx, userKey string, target agent.MemoryTarget) ([]memoryEntry, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT id, content FROM memory_entries
		WHERE user_key = ? AND target = ? ORDER BY id`, userKey, string(target))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var entries []memoryEntry
	for rows.Next() {
		var e memoryEntry
		if err := rows.Scan(&e.id, &e.content); err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, rows.Err()
}

// memoryPlan is the set of row changes that turns a stored list into an
// edited one. Deletions run first, then updates, then inserts in list order.
type memoryPlan struct {
	del    []int64
	update []memoryEntry // id with its new content
	insert []string
}

func (p memoryPlan) empty() bool {
	return len(p.del) == 0 && len(p.update) == 0 && len(p.insert) == 0
}

// planEdit works out the row changes from old to next. A list's order is its
// row ids' order, and new rows get ids above every existing one, so a new
// entry can be inserted only at the end. planEdit trims the common prefix
// and suffix and looks at what differs in between:
//
//   - as many entries as before: each changed one is updated in place
//     (replace);
//   - none left: the old ones are deleted (remove);
//   - none before and nothing after: the new ones are inserted (add);
//   - otherwise everything from the first difference on is deleted and
//     inserted again, which keeps the order right.
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

func (p memoryPlan) apply(ctx context.Context, tx *sql.Tx, userKey string, target agent.MemoryTarget, now int64) error {
	for _, id := range p.del {
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_entries WHERE id = ?`, id); err != nil {
			return fmt.Errorf("delete entry: %w", err)
		}
	}
	for _, e := range p.update {
		if _, err := tx.ExecContext(ctx,
			`UPDATE memory_entries SET content = ?, updated_at = ? WHERE id = ?`, e.content, now, e.id,
		); err != nil {
			return fmt.Errorf("update entry: %w", err)
		}
	}
	for _, content := range p.insert {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO memory_entries (user_key, target, content, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?)`, userKey, string(target), content, now, now,
		); err != nil {
			return fmt.Errorf("insert entry: %w", err)
		}
	}
	return nil
}

// platformOf returns the platform part of a user key "platform:id".
func platformOf(userKey string) string {
	platform, _, _ := strings.Cut(userKey, ":")
	return platform
}
