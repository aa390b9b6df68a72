package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Task is a session's task; ok is false when it has none.
func (db *DB) Task(ctx context.Context, sessionID string) (task.Task, bool, error) {
	t, ok, err := readTask(ctx, db.pool, sessionID, "")
	if err != nil {
		return task.Task{}, false, fmt.Errorf("postgres: %w", err)
	}
	return t, ok, nil
}

// readTask reads the session's task; lock is appended to the query (FOR
// UPDATE, in a transaction that will write the row).
func readTask(ctx context.Context, q querier, sessionID, lock string) (task.Task, bool, error) {
	t := task.Task{SessionID: sessionID}
	var plan string
	err := q.QueryRow(ctx, `SELECT plan, state, author, checklist, updated_at FROM tasks WHERE session_id = $1 `+lock, sessionID).
		Scan(&plan, &t.State, &t.Author, &t.Checklist, &t.UpdatedAt)
	if noRows(err) {
		return task.Task{}, false, nil
	}
	if err != nil {
		return task.Task{}, false, fmt.Errorf("task %q: %w", sessionID, err)
	}
	if t.Plan, err = rowdata.DecodePlan(plan); err != nil {
		return task.Task{}, false, fmt.Errorf("task %q: plan: %w", sessionID, err)
	}
	t.UpdatedAt = fromTS(t.UpdatedAt)
	return t, true, nil
}

// SavePlan replaces the session's plan and appends log in one
// transaction, creating the task (author, running) when there is none,
// and returns the plan it replaced.
//
// The plan it returns must be the one it replaced, which SQLite's write
// lock guaranteed. Here the task's row is locked (FOR UPDATE) before it is
// read; a task not there yet is created with ON CONFLICT DO NOTHING, and
// when another process created it first, the row is read again, locked.
func (db *DB) SavePlan(ctx context.Context, sessionID, author string, p task.Plan, log []task.Entry) (task.Plan, error) {
	body, err := rowdata.EncodePlan(p)
	if err != nil {
		return task.Plan{}, fmt.Errorf("postgres: save plan: %w", err)
	}
	var old task.Plan
	err = db.tx(ctx, func(tx pgx.Tx) error {
		now := ts(db.now())
		for {
			t, ok, err := readTask(ctx, tx, sessionID, "FOR UPDATE")
			if err != nil {
				return err
			}
			old = t.Plan
			if ok {
				if _, err := tx.Exec(ctx, `UPDATE tasks SET plan = $1, updated_at = $2 WHERE session_id = $3`, body, now, sessionID); err != nil {
					return err
				}
				break
			}
			tag, err := tx.Exec(ctx, `
				INSERT INTO tasks (session_id, plan, state, author, updated_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (session_id) DO NOTHING`,
				sessionID, body, task.Running, author, now)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				break
			}
		}
		return appendLog(ctx, tx, sessionID, log)
	})
	if err != nil {
		return task.Plan{}, fmt.Errorf("postgres: save plan: %w", err)
	}
	return old, nil
}

// SetState records the task's state; a session without a task is left
// alone.
func (db *DB) SetState(ctx context.Context, sessionID string, s task.State) error {
	if _, err := db.pool.Exec(ctx, `UPDATE tasks SET state = $1, updated_at = $2 WHERE session_id = $3`,
		s, ts(db.now()), sessionID); err != nil {
		return fmt.Errorf("postgres: task state: %w", err)
	}
	return nil
}

// SetChecklist records the message that shows the plan.
func (db *DB) SetChecklist(ctx context.Context, sessionID, ref string) error {
	if _, err := db.pool.Exec(ctx, `UPDATE tasks SET checklist = $1 WHERE session_id = $2`, ref, sessionID); err != nil {
		return fmt.Errorf("postgres: checklist: %w", err)
	}
	return nil
}

// AppendLog adds lines to the session's work log.
func (db *DB) AppendLog(ctx context.Context, sessionID string, entries ...task.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := db.tx(ctx, func(tx pgx.Tx) error { return appendLog(ctx, tx, sessionID, entries) }); err != nil {
		return fmt.Errorf("postgres: work log: %w", err)
	}
	return nil
}

// appendLog adds entries in order, in one round trip.
func appendLog(ctx context.Context, tx pgx.Tx, sessionID string, entries []task.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, e := range entries {
		b.Queue(`INSERT INTO task_log (session_id, at, kind, text) VALUES ($1, $2, $3, $4)`,
			sessionID, ts(e.At), e.Kind, e.Text)
	}
	return tx.SendBatch(ctx, b).Close()
}

// Log is the last n lines of the session's work log, oldest first.
func (db *DB) Log(ctx context.Context, sessionID string, n int) ([]task.Entry, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT at, kind, text FROM (
			SELECT id, at, kind, text FROM task_log WHERE session_id = $1 ORDER BY id DESC LIMIT $2
		) AS last ORDER BY id`, sessionID, sqlLimit(n))
	if err != nil {
		return nil, fmt.Errorf("postgres: work log: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (task.Entry, error) {
		var e task.Entry
		var at time.Time
		err := row.Scan(&at, &e.Kind, &e.Text)
		e.At = fromTS(at)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: work log: %w", err)
	}
	return out, nil
}
