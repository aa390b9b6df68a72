package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// RecordRun keeps one run's signals.
func (db *DB) RecordRun(ctx context.Context, r evolve.Run) error {
	skills, err := rowdata.EncodeList(r.SkillsRead)
	if err != nil {
		return fmt.Errorf("postgres: record run: %w", err)
	}
	_, err = db.pool.Exec(ctx, `
		INSERT INTO run_signals (scope, session_id, author, msg_key, at, tool_calls, transient_errors, real_errors,
			recovered, ended_in_error, stopped, corrected, skills_read, weakness)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		r.Scope, r.SessionID, r.Author, r.Key, ts(r.At), r.ToolCalls, r.TransientErrors, r.RealErrors,
		r.Recovered, r.EndedInRealError, r.Stopped, r.Corrected, skills, r.Weakness)
	if err != nil {
		return fmt.Errorf("postgres: record run: %w", err)
	}
	return nil
}

// MarkCorrected marks the latest run of author in session as corrected by
// them, and reports whether there was one not marked yet. One conditional
// UPDATE: of two processes marking at once, the second re-checks
// corrected = false against the first's committed row and marks nothing.
func (db *DB) MarkCorrected(ctx context.Context, sessionID, author string) (bool, error) {
	tag, err := db.pool.Exec(ctx, `
		UPDATE run_signals SET corrected = true
		WHERE id = (SELECT max(id) FROM run_signals WHERE session_id = $1 AND author = $2) AND NOT corrected`,
		sessionID, author)
	if err != nil {
		return false, fmt.Errorf("postgres: mark corrected: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// signalColumns are a run's signals in scanSignals' order.
const signalColumns = `tool_calls, transient_errors, real_errors, recovered, ended_in_error, stopped, corrected, skills_read, weakness`

// scanSignals scans the leading columns into lead, then signalColumns.
func scanSignals(row rowScanner, s *evolve.Signals, lead ...any) error {
	var skills string
	if err := row.Scan(append(lead, &s.ToolCalls, &s.TransientErrors, &s.RealErrors,
		&s.Recovered, &s.EndedInRealError, &s.Stopped, &s.Corrected, &skills, &s.Weakness)...); err != nil {
		return err
	}
	var err error
	if s.SkillsRead, err = rowdata.DecodeList(skills); err != nil {
		return fmt.Errorf("skills read: %w", err)
	}
	return nil
}

// Runs lists scope's runs since a time, oldest first.
func (db *DB) Runs(ctx context.Context, scope string, since time.Time) ([]evolve.Run, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT scope, session_id, author, msg_key, at, `+signalColumns+`
		FROM run_signals WHERE scope = $1 AND at >= $2 ORDER BY at, id`, scope, ts(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: runs: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (evolve.Run, error) {
		var r evolve.Run
		err := scanSignals(row, &r.Signals, &r.Scope, &r.SessionID, &r.Author, &r.Key, &r.At)
		r.At = fromTS(r.At)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: runs: %w", err)
	}
	return out, nil
}

// AddImpressions counts one impression for each named skill of scope. Each
// upsert adds one atomically, so counts from several processes add up; the
// rows are taken in name order, so two processes counting the same skills
// never lock them in opposite orders (a deadlock).
func (db *DB) AddImpressions(ctx context.Context, scope string, names []string) error {
	b := &pgx.Batch{}
	for _, n := range slices.Sorted(slices.Values(names)) {
		b.Queue(`
			INSERT INTO skill_impressions (scope, name, impressions) VALUES ($1, $2, 1)
			ON CONFLICT (scope, name) DO UPDATE SET impressions = skill_impressions.impressions + 1`, scope, n)
	}
	if err := db.tx(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() }); err != nil {
		return fmt.Errorf("postgres: add impressions: %w", err)
	}
	return nil
}

// SkillRates are the counts a skill's three rates come from, in one scope.
func (db *DB) SkillRates(ctx context.Context, scope, name string) (evolve.Rates, error) {
	var r evolve.Rates
	err := db.pool.QueryRow(ctx, `
		SELECT
			coalesce((SELECT impressions FROM skill_impressions WHERE scope = $1 AND name = $2), 0),
			count(*),
			count(*) FILTER (WHERE corrected),
			count(*) FILTER (WHERE ended_in_error AND NOT stopped)
		FROM run_signals
		WHERE scope = $1 AND EXISTS (
			SELECT 1 FROM jsonb_array_elements_text(skills_read) AS s(v) WHERE lower(s.v) = lower($2))`,
		scope, name).Scan(&r.Impressions, &r.Invocations, &r.EditAfterHit, &r.Ineffective)
	if err != nil {
		return evolve.Rates{}, fmt.Errorf("postgres: skill rates: %w", err)
	}
	return r, nil
}

// ScopeSkillRates are the counts of every skill read or listed in scope,
// by its name lowercased, in one statement however many skills there are
// (the skill index ranks by them each turn its budget binds).
func (db *DB) ScopeSkillRates(ctx context.Context, scope string) (map[string]evolve.Rates, error) {
	rows, err := db.pool.Query(ctx, `
		WITH reads AS (
			SELECT DISTINCT r.id, lower(s.v) AS name, r.corrected::int AS corrected,
				(r.ended_in_error AND NOT r.stopped)::int AS ineffective
			FROM run_signals r CROSS JOIN LATERAL jsonb_array_elements_text(r.skills_read) AS s(v)
			WHERE r.scope = $1)
		SELECT name, sum(imp)::bigint, sum(inv)::bigint, sum(cor)::bigint, sum(ineff)::bigint FROM (
			SELECT lower(name) AS name, impressions::bigint AS imp, 0 AS inv, 0 AS cor, 0 AS ineff
			FROM skill_impressions WHERE scope = $1
			UNION ALL
			SELECT name, 0, 1, corrected, ineffective FROM reads) AS u
		GROUP BY name`, scope)
	if err != nil {
		return nil, fmt.Errorf("postgres: scope skill rates: %w", err)
	}
	out := map[string]evolve.Rates{}
	var name string
	var r evolve.Rates
	_, err = pgx.ForEachRow(rows, []any{&name, &r.Impressions, &r.Invocations, &r.EditAfterHit, &r.Ineffective}, func() error {
		out[name] = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: scope skill rates: %w", err)
	}
	return out, nil
}

// Activity lists every scope with runs: its last reflection, newest run,
// oldest run since that reflection, and the best score (w) of the runs
// since.
func (db *DB) Activity(ctx context.Context, w evolve.Weights) ([]evolve.Activity, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT r.scope, f.last_at, r.at, `+rowdata.Qualified("r", signalColumns)+`
		FROM run_signals r LEFT JOIN reflections f ON f.scope = r.scope
		ORDER BY r.scope COLLATE "C", r.at, r.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: activity: %w", err)
	}
	defer rows.Close()
	var out []evolve.Activity
	for rows.Next() {
		var scope string
		var last *time.Time
		var at time.Time
		var s evolve.Signals
		if err := scanSignals(rows, &s, &scope, &last, &at); err != nil {
			return nil, fmt.Errorf("postgres: activity: %w", err)
		}
		out = rowdata.AddActivity(out, scope, fromOptTS(last), fromTS(at), s, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: activity: %w", err)
	}
	return out, nil
}

// MarkReflected records that scope reflected at t.
func (db *DB) MarkReflected(ctx context.Context, scope string, t time.Time) error {
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO reflections (scope, last_at) VALUES ($1, $2)
		ON CONFLICT (scope) DO UPDATE SET last_at = excluded.last_at`, scope, ts(t)); err != nil {
		return fmt.Errorf("postgres: mark reflected: %w", err)
	}
	return nil
}

// Memo is a scope's self-memo.
func (db *DB) Memo(ctx context.Context, scope string) (evolve.Memo, error) {
	rows, err := db.pool.Query(ctx, `SELECT kind, text FROM self_memo WHERE scope = $1`, scope)
	if err != nil {
		return evolve.Memo{}, fmt.Errorf("postgres: memo: %w", err)
	}
	var m evolve.Memo
	var kind, text string
	if _, err := pgx.ForEachRow(rows, []any{&kind, &text}, func() error {
		if kind == evolve.MemoSelf {
			m.Self = text
		} else {
			m.Team = text
		}
		return nil
	}); err != nil {
		return evolve.Memo{}, fmt.Errorf("postgres: memo: %w", err)
	}
	return m, nil
}

// SetMemo replaces one note of a scope's self-memo.
func (db *DB) SetMemo(ctx context.Context, scope, kind, text string) error {
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO self_memo (scope, kind, text, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (scope, kind) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
		scope, kind, text, ts(db.now())); err != nil {
		return fmt.Errorf("postgres: set memo: %w", err)
	}
	return nil
}

// AddRevision keeps what a reflection's change replaced.
func (db *DB) AddRevision(ctx context.Context, r evolve.Revision) error {
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO learning_revisions (scope, kind, name, action, before, at) VALUES ($1, $2, $3, $4, $5, $6)`,
		r.Scope, r.Kind, r.Name, r.Action, r.Before, ts(r.At)); err != nil {
		return fmt.Errorf("postgres: add revision: %w", err)
	}
	return nil
}

// Revisions lists scope's latest n revisions, newest first.
func (db *DB) Revisions(ctx context.Context, scope string, n int) ([]evolve.Revision, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT id, scope, kind, name, action, before, at FROM learning_revisions
		WHERE scope = $1 ORDER BY id DESC LIMIT $2`, scope, sqlLimit(n))
	if err != nil {
		return nil, fmt.Errorf("postgres: revisions: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (evolve.Revision, error) {
		var r evolve.Revision
		err := row.Scan(&r.ID, &r.Scope, &r.Kind, &r.Name, &r.Action, &r.Before, &r.At)
		r.At = fromTS(r.At)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: revisions: %w", err)
	}
	return out, nil
}

// DeleteRevision forgets a revision (it was undone).
func (db *DB) DeleteRevision(ctx context.Context, id int64) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM learning_revisions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("postgres: delete revision: %w", err)
	}
	return nil
}

// RecordReflection keeps one reflection's record.
func (db *DB) RecordReflection(ctx context.Context, r evolve.ReflectionRecord) error {
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO reflection_log (scope, at, changes, calls, tokens, nanos, unpriced, error)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		r.Scope, ts(r.At), r.Changes, r.Calls, r.Tokens, r.Nanos, r.Unpriced, r.Err); err != nil {
		return fmt.Errorf("postgres: record reflection: %w", err)
	}
	return nil
}

// Reflections lists the latest limit reflections, newest first.
func (db *DB) Reflections(ctx context.Context, limit int) ([]evolve.ReflectionRecord, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT id, scope, at, changes, calls, tokens, nanos, unpriced, error FROM reflection_log
		ORDER BY id DESC LIMIT $1`, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: reflections: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (evolve.ReflectionRecord, error) {
		var r evolve.ReflectionRecord
		err := row.Scan(&r.ID, &r.Scope, &r.At, &r.Changes, &r.Calls, &r.Tokens, &r.Nanos, &r.Unpriced, &r.Err)
		r.At = fromTS(r.At)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: reflections: %w", err)
	}
	return out, nil
}
