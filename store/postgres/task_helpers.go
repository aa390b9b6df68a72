package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// AddHelper creates h's sub-session and its record in one transaction. The
// sub-session is a session in the parent's conversation, bound to no
// thread.
func (db *DB) AddHelper(ctx context.Context, h task.Helper) (task.Helper, error) {
	err := db.tx(ctx, func(tx pgx.Tx) error {
		sid, err := db.helperSession(ctx, tx, h.Parent)
		if err != nil {
			return err
		}
		now := ts(db.now())
		if err := tx.QueryRow(ctx, `
			INSERT INTO task_helpers (parent_session, helper_session, item, item_text, instruction, status, result, call_id, turn_key, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id`,
			h.Parent, sid, h.Item, h.ItemText, h.Instruction, h.Status, h.Result, h.Call, h.Key, now,
		).Scan(&h.ID); err != nil {
			return err
		}
		h.Session, h.CreatedAt, h.UpdatedAt = sid, now, now
		return nil
	})
	if err != nil {
		return task.Helper{}, fmt.Errorf("postgres: add helper of %q: %w", h.Parent, err)
	}
	return h, nil
}

// helperSession creates a session in the conversation of parent, bound to
// no thread.
func (db *DB) helperSession(ctx context.Context, tx pgx.Tx, parent string) (string, error) {
	id, now := db.newID(), ts(db.now())
	tag, err := tx.Exec(ctx, `
		INSERT INTO sessions (id, platform, space, chat, thread, created_at, updated_at)
		SELECT $1, platform, space, chat, thread, $2, $2 FROM sessions WHERE id = $3`,
		id, now, parent)
	if err != nil {
		return "", fmt.Errorf("create helper session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return "", fmt.Errorf("parent session %q: %w", parent, store.ErrNotFound)
	}
	return id, nil
}

// SaveHelper records h's instruction, status, result, call and turn key.
func (db *DB) SaveHelper(ctx context.Context, h task.Helper) error {
	tag, err := db.pool.Exec(ctx, `
		UPDATE task_helpers SET instruction = $1, status = $2, result = $3, call_id = $4, turn_key = $5, updated_at = $6
		WHERE id = $7`,
		h.Instruction, h.Status, h.Result, h.Call, h.Key, ts(db.now()), h.ID)
	if err != nil {
		return fmt.Errorf("postgres: save helper %d: %w", h.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: save helper %d: %w", h.ID, store.ErrNotFound)
	}
	return nil
}

// Helpers lists the helpers of a parent session, oldest first.
func (db *DB) Helpers(ctx context.Context, parent string) ([]task.Helper, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT id, parent_session, helper_session, item, item_text, instruction, status, result, call_id, turn_key, created_at, updated_at
		FROM task_helpers WHERE parent_session = $1 ORDER BY id`, parent)
	if err != nil {
		return nil, fmt.Errorf("postgres: helpers of %q: %w", parent, err)
	}
	out, err := collect(rows, func(row rowScanner) (task.Helper, error) {
		var h task.Helper
		err := row.Scan(&h.ID, &h.Parent, &h.Session, &h.Item, &h.ItemText, &h.Instruction, &h.Status, &h.Result,
			&h.Call, &h.Key, &h.CreatedAt, &h.UpdatedAt)
		h.CreatedAt, h.UpdatedAt = fromTS(h.CreatedAt), fromTS(h.UpdatedAt)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: helpers of %q: %w", parent, err)
	}
	return out, nil
}

// HelperParent returns the session whose helper sessionID is; ok is false
// for a session that is no helper's.
func (db *DB) HelperParent(ctx context.Context, sessionID string) (parent string, ok bool, err error) {
	err = db.pool.QueryRow(ctx, `SELECT parent_session FROM task_helpers WHERE helper_session = $1`, sessionID).Scan(&parent)
	switch {
	case noRows(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("postgres: parent of %q: %w", sessionID, err)
	}
	return parent, true, nil
}

// EditPlan changes the session's plan in one transaction, so helpers
// updating their own items at once never lose each other's changes.
//
// SQLite's write lock serialized the read-modify-write; here the task's
// row is read FOR UPDATE, so concurrent edits from any process wait for
// each other and each edits the plan the one before committed.
func (db *DB) EditPlan(ctx context.Context, sessionID string, edit func(p *task.Plan) ([]task.Entry, error)) error {
	err := db.tx(ctx, func(tx pgx.Tx) error {
		t, ok, err := readTask(ctx, tx, sessionID, "FOR UPDATE")
		if err != nil {
			return err
		}
		body, log, err := rowdata.EditPlan(t, ok, edit)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE tasks SET plan = $1, updated_at = $2 WHERE session_id = $3`,
			body, ts(db.now()), sessionID); err != nil {
			return err
		}
		return appendLog(ctx, tx, sessionID, log)
	})
	if err != nil {
		return fmt.Errorf("postgres: edit plan of %q: %w", sessionID, err)
	}
	return nil
}
