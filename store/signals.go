package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// RecordRun keeps one run's signals.
func (db *DB) RecordRun(ctx context.Context, r evolve.Run) error {
	skills, err := rowdata.EncodeList(r.SkillsRead)
	if err != nil {
		return fmt.Errorf("store: record run: %w", err)
	}
	_, err = db.w.ExecContext(ctx, `
		INSERT INTO run_signals (scope, session_id, author, msg_key, at, tool_calls, transient_errors, real_errors,
			recovered, ended_in_error, stopped, corrected, skills_read, weakness)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Scope, r.SessionID, r.Author, r.Key, millis(r.At), r.ToolCalls, r.TransientErrors, r.RealErrors,
		r.Recovered, r.EndedInRealError, r.Stopped, r.Corrected, skills, r.Weakness)
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
			recovered, ended_in_error, stopped, corrected, skills_read, weakness
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
		&r.Recovered, &r.EndedInRealError, &r.Stopped, &r.Corrected, &skills, &r.Weakness)
	if err != nil {
		return r, err
	}
	r.At = fromMillis(at)
	if r.SkillsRead, err = rowdata.DecodeList(skills); err != nil {
		return r, err
	}
	return r, nil
}

// AddImpressions counts one impression for each named skill of scope.
func (db *DB) AddImpressions(ctx context.Context, scope string, names []string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		for _, n := range names {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO skill_impressions (scope, name, impressions) VALUES (?, ?, 1)
				ON CONFLICT (scope, name) DO UPDATE SET impressions = impressions + 1`, scope, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: add impressions: %w", err)
	}
	return nil
}

// SkillRates are the counts a skill's three rates come from, in one scope.
func (db *DB) SkillRates(ctx context.Context, scope, name string) (evolve.Rates, error) {
	var r evolve.Rates
	err := db.r.QueryRowContext(ctx, `
		SELECT
			coalesce((SELECT impressions FROM skill_impressions WHERE scope = ?1 AND name = ?2), 0),
			count(*),
			coalesce(sum(corrected), 0),
			coalesce(sum(ended_in_error AND NOT stopped), 0)
		FROM run_signals
		WHERE scope = ?1 AND EXISTS (SELECT 1 FROM json_each(skills_read) WHERE lower(value) = lower(?2))`,
		scope, name).Scan(&r.Impressions, &r.Invocations, &r.EditAfterHit, &r.Ineffective)
	if err != nil {
		return evolve.Rates{}, fmt.Errorf("store: skill rates: %w", err)
	}
	return r, nil
}

// ScopeSkillRates are the counts of every skill read or listed in scope,
// by its name lowercased, in one statement however many skills there are
// (the skill index ranks by them each turn its budget binds).
func (db *DB) ScopeSkillRates(ctx context.Context, scope string) (map[string]evolve.Rates, error) {
	rows, err := db.r.QueryContext(ctx, `
		WITH reads AS (
			SELECT DISTINCT r.id, lower(j.value) AS name, r.corrected AS corrected,
				(r.ended_in_error AND NOT r.stopped) AS ineffective
			FROM run_signals r, json_each(r.skills_read) j WHERE r.scope = ?1)
		SELECT name, sum(imp), sum(inv), sum(cor), sum(ineff) FROM (
			SELECT lower(name) AS name, impressions AS imp, 0 AS inv, 0 AS cor, 0 AS ineff
			FROM skill_impressions WHERE scope = ?1
			UNION ALL
			SELECT name, 0, 1, corrected, ineffective FROM reads)
		GROUP BY name`, scope)
	if err != nil {
		return nil, fmt.Errorf("store: scope skill rates: %w", err)
	}
	defer rows.Close()
	out := map[string]evolve.Rates{}
	for rows.Next() {
		var name string
		var r evolve.Rates
		if err := rows.Scan(&name, &r.Impressions, &r.Invocations, &r.EditAfterHit, &r.Ineffective); err != nil {
			return nil, fmt.Errorf("store: scope skill rates: %w", err)
		}
		out[name] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: scope skill rates: %w", err)
	}
	return out, nil
}

// Activity lists every scope with runs: its last reflection, newest run,
// oldest run since that reflection, and the best score (w) of the runs
// since.
func (db *DB) Activity(ctx context.Context, w evolve.Weights) ([]evolve.Activity, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT r.scope, coalesce(f.last_at, 0), r.at, r.tool_calls, r.transient_errors, r.real_errors,
			r.recovered, r.ended_in_error, r.stopped, r.corrected, r.skills_read, r.weakness
		FROM run_signals r LEFT JOIN reflections f ON f.scope = r.scope
		ORDER BY r.scope, r.at`)
	if err != nil {
		return nil, fmt.Errorf("store: activity: %w", err)
	}
	defer rows.Close()
	var out []evolve.Activity
	for rows.Next() {
		var scope, skills string
		var last, at int64
		var s evolve.Signals
		if err := rows.Scan(&scope, &last, &at, &s.ToolCalls, &s.TransientErrors, &s.RealErrors,
			&s.Recovered, &s.EndedInRealError, &s.Stopped, &s.Corrected, &skills, &s.Weakness); err != nil {
			return nil, fmt.Errorf("store: activity: %w", err)
		}
		if s.SkillsRead, err = rowdata.DecodeList(skills); err != nil {
			return nil, fmt.Errorf("store: activity: %w", err)
		}
		var lastReflected time.Time // zero: never
		if last != 0 {
			lastReflected = fromMillis(last)
		}
		out = rowdata.AddActivity(out, scope, lastReflected, fromMillis(at), s, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: activity: %w", err)
	}
	return out, nil
}

// MarkReflected records that scope reflected at t.
func (db *DB) MarkReflected(ctx context.Context, scope string, t time.Time) error {
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO reflections (scope, last_at) VALUES (?, ?)
		ON CONFLICT (scope) DO UPDATE SET last_at = excluded.last_at`, scope, millis(t)); err != nil {
		return fmt.Errorf("store: mark reflected: %w", err)
	}
	return nil
}

// Memo is a scope's self-memo.
func (db *DB) Memo(ctx context.Context, scope string) (evolve.Memo, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT kind, text FROM self_memo WHERE scope = ?`, scope)
	if err != nil {
		return evolve.Memo{}, fmt.Errorf("store: memo: %w", err)
	}
	defer rows.Close()
	var m evolve.Memo
	for rows.Next() {
		var kind, text string
		if err := rows.Scan(&kind, &text); err != nil {
			return evolve.Memo{}, fmt.Errorf("store: memo: %w", err)
		}
		if kind == evolve.MemoSelf {
			m.Self = text
		} else {
			m.Team = text
		}
	}
	return m, rows.Err()
}

// SetMemo replaces one note of a scope's self-memo.
func (db *DB) SetMemo(ctx context.Context, scope, kind, text string) error {
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO self_memo (scope, kind, text, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (scope, kind) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
		scope, kind, text, millis(db.now())); err != nil {
		return fmt.Errorf("store: set memo: %w", err)
	}
	return nil
}

// AddRevision keeps what a reflection's change replaced.
func (db *DB) AddRevision(ctx context.Context, r evolve.Revision) error {
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO learning_revisions (scope, kind, name, action, before, at) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Scope, r.Kind, r.Name, r.Action, r.Before, millis(r.At)); err != nil {
		return fmt.Errorf("store: add revision: %w", err)
	}
	return nil
}

// Revisions lists scope's latest n revisions, newest first.
func (db *DB) Revisions(ctx context.Context, scope string, n int) ([]evolve.Revision, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT id, scope, kind, name, action, before, at FROM learning_revisions
		WHERE scope = ? ORDER BY id DESC LIMIT ?`, scope, n)
	if err != nil {
		return nil, fmt.Errorf("store: revisions: %w", err)
	}
	defer rows.Close()
	var out []evolve.Revision
	for rows.Next() {
		var r evolve.Revision
		var at int64
		if err := rows.Scan(&r.ID, &r.Scope, &r.Kind, &r.Name, &r.Action, &r.Before, &at); err != nil {
			return nil, fmt.Errorf("store: revisions: %w", err)
		}
		r.At = fromMillis(at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRevision forgets a revision (it was undone).
func (db *DB) DeleteRevision(ctx context.Context, id int64) error {
	if _, err := db.w.ExecContext(ctx, `DELETE FROM learning_revisions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete revision: %w", err)
	}
	return nil
}

// RecordReflection keeps one reflection's record.
func (db *DB) RecordReflection(ctx context.Context, r evolve.ReflectionRecord) error {
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO reflection_log (scope, at, changes, calls, tokens, nanos, unpriced, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Scope, millis(r.At), r.Changes, r.Calls, r.Tokens, r.Nanos, r.Unpriced, r.Err); err != nil {
		return fmt.Errorf("store: record reflection: %w", err)
	}
	return nil
}

// Reflections lists the latest limit reflections, newest first.
func (db *DB) Reflections(ctx context.Context, limit int) ([]evolve.ReflectionRecord, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT id, scope, at, changes, calls, tokens, nanos, unpriced, error FROM reflection_log
		ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reflections: %w", err)
	}
	defer rows.Close()
	var out []evolve.ReflectionRecord
	for rows.Next() {
		var r evolve.ReflectionRecord
		var at int64
		if err := rows.Scan(&r.ID, &r.Scope, &at, &r.Changes, &r.Calls, &r.Tokens, &r.Nanos, &r.Unpriced, &r.Err); err != nil {
			return nil, fmt.Errorf("store: reflections: %w", err)
		}
		r.At = fromMillis(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reflections: %w", err)
	}
	return out, nil
}
