package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/evolve"
)

// RecordRun keeps one run's signals.
func (db *DB) RecordRun(ctx context.Context, r evolve.Run) error {
	skills, err := json.Marshal(nonNil(r.SkillsRead))
	if err != nil {
		return fmt.Errorf("store: record run: %w", err)
	}
	_, err = db.w.ExecContext(ctx, `
		INSERT INTO run_signals (scope, session_id, author, msg_key, at, tool_calls, transient_errors, real_errors,
			recovered, ended_in_error, stopped, corrected, skills_read)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Scope, r.SessionID, r.Author, r.Key, millis(r.At), r.ToolCalls, r.TransientErrors, r.RealErrors,
		r.Recovered, r.EndedInRealError, r.Stopped, r.Corrected, string(skills))
	if err != nil {
		return fmt.Errorf("store: record run: %w", err)
	}
	return nil
}

// MarkCorrected marks the latest run of author in session as corrected
// by them, and reports whether there was one not marked yet.
func (db *DB) MarkCorrected(ctx context.Context, sessionID, author string) (bool, error) {
	res, err := db.w.ExecContext(ctx, `
		UPDATE run_signals SET corrected = 1
		WHERE id = (SELECT max(id) FROM run_signals WHERE session_id = ? AND author = ?) AND corrected = 0`,
		sessionID, author)
	if err != nil {
		return false, fmt.Errorf("store: mark corrected: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Runs lists scope's runs since a time, oldest first.
func (db *DB) Runs(ctx context.Context, scope string, since time.Time) ([]evolve.Run, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT scope, session_id, author, msg_key, at, tool_calls, transient_errors, real_errors,
			recovered, ended_in_error, stopped, corrected, skills_read
		FROM run_signals WHERE scope = ? AND at >= ? ORDER BY at, id`, scope, millis(since))
	if err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	defer rows.Close()
	var out []evolve.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("store: runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	return out, nil
}

func scanRun(rows *sql.Rows) (evolve.Run, error) {
	var r evolve.Run
	var at int64
	var skills string
	err := rows.Scan(&r.Scope, &r.SessionID, &r.Author, &r.Key, &at, &r.ToolCalls, &r.TransientErrors, &r.RealErrors,
		&r.Recovered, &r.EndedInRealError, &r.Stopped, &r.Corrected, &skills)
	if err != nil {
		return r, err
	}
	r.At = fromMillis(at)
	if err := json.Unmarshal([]byte(skills), &r.SkillsRead); err != nil {
		return r, err
	}
	if len(r.SkillsRead) == 0 {
		r.SkillsRead = nil
	}
	return r, nil
}
