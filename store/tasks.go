package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ task.Store = (*DB)(nil)

// Task is a session's task; ok is false when it has none.
func (db *DB) Task(ctx context.Context, sessionID string) (task.Task, bool, error) {
	return readTask(ctx, db.r, sessionID)
}

func readTask(ctx context.Context, q queryRower, sessionID string) (task.Task, bool, error) {
	t := task.Task{SessionID: sessionID}
	var plan string
	var updated int64
	err := q.QueryRowContext(ctx, `SELECT plan, state, author, checklist, updated_at FROM tasks WHERE session_id = ?`, sessionID).
		Scan(&plan, &t.State, &t.Author, &t.Checklist, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return task.Task{}, false, nil
	}
	if err != nil {
		return task.Task{}, false, fmt.Errorf("store: task %q: %w", sessionID, err)
	}
	if t.Plan, err = rowdata.DecodePlan(plan); err != nil {
		return task.Task{}, false, fmt.Errorf("store: task %q: plan: %w", sessionID, err)
	}
	t.UpdatedAt = fromMillis(updated)
	return t, true, nil
}

// SavePlan replaces the session's plan and appends log in one
// transaction, creating the task (author, running) when there is none.
func (db *DB) SavePlan(ctx context.Context, sessionID, author string, p task.Plan, log []task.Entry) (task.Plan, error) {
	body, err := rowdata.EncodePlan(p)
	if err != nil {
		return task.Plan{}, fmt.Errorf("store: save plan: %w", err)
	}
	var old task.Plan
	err = db.write(ctx, func(tx *sql.Tx) error {
		t, ok, err := readTask(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		old = t.Plan
		now := millis(db.now())
		if ok {
			_, err = tx.ExecContext(ctx, `UPDATE tasks SET plan = ?, updated_at = ? WHERE session_id = ?`, body, now, sessionID)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO tasks (session_id, plan, state, author, updated_at) VALUES (?, ?, ?, ?, ?)`,
				sessionID, body, task.Running, author, now)
		}
		if err != nil {
			return err
		}
		return appendLog(ctx, tx, sessionID, log)
	})
	if err != nil {
		return task.Plan{}, fmt.Errorf("store: save plan: %w", err)
	}
	return old, nil
}

// SetState records the task's state; a session without a task is left
// alone.
func (db *DB) SetState(ctx context.Context, sessionID string, s task.State) error {
	if _, err := db.w.ExecContext(ctx, `UPDATE tasks SET state = ?, updated_at = ? WHERE session_id = ?`,
		s, millis(db.now()), sessionID); err != nil {
		return fmt.Errorf("store: task state: %w", err)
	}
	return nil
}

// SetChecklist records the message that shows the plan.
func (db *DB) SetChecklist(ctx context.Context, sessionID, ref string) error {
	if _, err := db.w.ExecContext(ctx, `UPDATE tasks SET checklist = ? WHERE session_id = ?`, ref, sessionID); err != nil {
		return fmt.Errorf("store: checklist: %w", err)
	}
	return nil
}

// AppendLog adds lines to the session's work log.
func (db *DB) AppendLog(ctx context.Context, sessionID string, entries ...task.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := db.write(ctx, func(tx *sql.Tx) error { return appendLog(ctx, tx, sessionID, entries) }); err != nil {
		return fmt.Errorf("store: work log: %w", err)
	}
	return nil
}

func appendLog(ctx context.Context, tx *sql.Tx, sessionID string, entries []task.Entry) error {
	for _, e := range entries {
		if _, err := tx.ExecContext(ctx, `INSERT INTO task_log (session_id, at, kind, text) VALUES (?, ?, ?, ?)`,
			sessionID, millis(e.At), e.Kind, e.Text); err != nil {
			return err
		}
	}
	return nil
}

// Log is the last n lines of the session's work log, oldest first.
func (db *DB) Log(ctx context.Context, sessionID string, n int) ([]task.Entry, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT at, kind, text FROM (
			SELECT id, at, kind, text FROM task_log WHERE session_id = ? ORDER BY id DESC LIMIT ?
		) ORDER BY id`, sessionID, n)
	if err != nil {
		return nil, fmt.Errorf("store: work log: %w", err)
	}
	defer rows.Close()
	var out []task.Entry
	for rows.Next() {
		var e task.Entry
		var at int64
		if err := rows.Scan(&at, &e.Kind, &e.Text); err != nil {
			return nil, fmt.Errorf("store: work log: %w", err)
		}
		e.At = fromMillis(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
