package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ task.HelperStore = (*DB)(nil)

// AddHelper creates h's sub-session and its record in one transaction. The
// sub-session is a session in the parent's conversation (its thread
// columns are the parent's), so what the conversation is asked on its
// behalf — an approval — shows there; no thread is bound to it, so no
// message of the thread ever reaches it.
func (db *DB) AddHelper(ctx context.Context, h task.Helper) (task.Helper, error) {
	err := db.write(ctx, func(tx *sql.Tx) error {
		sid, err := db.helperSession(ctx, tx, h.Parent)
		if err != nil {
			return err
		}
		now := db.now()
		res, err := tx.ExecContext(ctx, `
			INSERT INTO task_helpers (parent_session, helper_session, item, item_text, instruction, status, result, call_id, turn_key, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			h.Parent, sid, h.Item, h.ItemText, h.Instruction, h.Status, h.Result, h.Call, h.Key, millis(now), millis(now))
		if err != nil {
			return err
		}
		if h.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		h.Session, h.CreatedAt, h.UpdatedAt = sid, fromMillis(millis(now)), fromMillis(millis(now))
		return nil
	})
	if err != nil {
		return task.Helper{}, fmt.Errorf("store: add helper of %q: %w", h.Parent, err)
	}
	return h, nil
}

// helperSession creates a session in the conversation of parent, bound to
// no thread.
func (db *DB) helperSession(ctx context.Context, tx *sql.Tx, parent string) (string, error) {
	id, now := db.newID(), millis(db.now())
	res, err := tx.ExecContext(ctx, `
		INSERT INTO sessions (id, platform, space, chat, thread, created_at, updated_at)
		SELECT ?, platform, space, chat, thread, ?, ? FROM sessions WHERE id = ?`,
		id, now, now, parent)
	if err != nil {
		return "", fmt.Errorf("create helper session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", err
	} else if n == 0 {
		return "", fmt.Errorf("parent session %q: %w", parent, ErrNotFound)
	}
	return id, nil
}

// SaveHelper records h's instruction, status, result, call and turn key.
func (db *DB) SaveHelper(ctx context.Context, h task.Helper) error {
	res, err := db.w.ExecContext(ctx, `
		UPDATE task_helpers SET instruction = ?, status = ?, result = ?, call_id = ?, turn_key = ?, updated_at = ?
		WHERE id = ?`,
		h.Instruction, h.Status, h.Result, h.Call, h.Key, millis(db.now()), h.ID)
	if err != nil {
		return fmt.Errorf("store: save helper %d: %w", h.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: save helper %d: %w", h.ID, err)
	} else if n == 0 {
		return fmt.Errorf("store: save helper %d: %w", h.ID, ErrNotFound)
	}
	return nil
}

// Helpers lists the helpers of a parent session, oldest first.
func (db *DB) Helpers(ctx context.Context, parent string) ([]task.Helper, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT id, parent_session, helper_session, item, item_text, instruction, status, result, call_id, turn_key, created_at, updated_at
		FROM task_helpers WHERE parent_session = ? ORDER BY id`, parent)
	if err != nil {
		return nil, fmt.Errorf("store: helpers of %q: %w", parent, err)
	}
	defer rows.Close()
	var out []task.Helper
	for rows.Next() {
		var h task.Helper
		var created, updated int64
		if err := rows.Scan(&h.ID, &h.Parent, &h.Session, &h.Item, &h.ItemText, &h.Instruction, &h.Status, &h.Result,
			&h.Call, &h.Key, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: helpers of %q: %w", parent, err)
		}
		h.CreatedAt, h.UpdatedAt = fromMillis(created), fromMillis(updated)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: helpers of %q: %w", parent, err)
	}
	return out, nil
}

// HelperParent returns the session whose helper sessionID is; ok is false
// for a session that is no helper's. The chat core asks before it
// continues a session on its own (a decided approval): a helper's
// sub-session is continued only by its parent's delegate call.
func (db *DB) HelperParent(ctx context.Context, sessionID string) (parent string, ok bool, err error) {
	err = db.r.QueryRowContext(ctx, `SELECT parent_session FROM task_helpers WHERE helper_session = ?`, sessionID).Scan(&parent)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store: parent of %q: %w", sessionID, err)
	}
	return parent, true, nil
}

// EditPlan changes the session's plan in one transaction, so helpers
// updating their own items at once never lose each other's changes.
func (db *DB) EditPlan(ctx context.Context, sessionID string, edit func(p *task.Plan) ([]task.Entry, error)) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		t, ok, err := readTask(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		body, log, err := rowdata.EditPlan(t, ok, edit)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET plan = ?, updated_at = ? WHERE session_id = ?`,
			body, millis(db.now()), sessionID); err != nil {
			return err
		}
		return appendLog(ctx, tx, sessionID, log)
	})
	if err != nil {
		return fmt.Errorf("store: edit plan of %q: %w", sessionID, err)
	}
	return nil
}
