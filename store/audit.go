package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The audit log (bot.AuditLog): rows only ever added, read newest first
// by id, which AUTOINCREMENT never hands out twice.

var _ bot.AuditLog = (*DB)(nil)

// Audit adds e; its ID is the row's.
func (db *DB) Audit(ctx context.Context, e bot.AuditEntry) error {
	if err := rowdata.AuditCheck(e); err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO audit_log (at, actor, action, target, detail, via) VALUES (?, ?, ?, ?, ?, ?)`,
		millis(e.At), e.Actor, e.Action, e.Target, e.Detail, e.Via); err != nil {
		return fmt.Errorf("store: audit %s: %w", e.Action, err)
	}
	return nil
}

// AuditEntries lists the entries f selects, newest first, at most limit.
func (db *DB) AuditEntries(ctx context.Context, f bot.AuditFilter, limit int) ([]bot.AuditEntry, error) {
	if err := rowdata.AuditLimit(limit); err != nil {
		return nil, fmt.Errorf("store: audit entries: %w", err)
	}
	where, args := auditWhere(f)
	rows, err := db.r.QueryContext(ctx, `
		SELECT id, at, actor, action, target, detail, via FROM audit_log`+where+`
		ORDER BY id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: audit entries: %w", err)
	}
	defer rows.Close()
	var out []bot.AuditEntry
	for rows.Next() {
		var e bot.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Detail, &e.Via); err != nil {
			return nil, fmt.Errorf("store: audit entries: %w", err)
		}
		e.At = fromMillis(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: audit entries: %w", err)
	}
	return out, nil
}

// auditWhere is the WHERE clause f puts on audit_log ("" for none) and
// its arguments. An action's prefix is a range of bytes (SQLite's BINARY
// collation), so that % and _ in it are only themselves.
func auditWhere(f bot.AuditFilter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if f.Actor != "" {
		add("actor = ?", f.Actor)
	}
	if f.Action != "" {
		lo, hi, prefix := rowdata.AuditAction(f.Action)
		if prefix {
			add("action >= ?", lo)
			add("action < ?", hi)
		} else {
			add("action = ?", lo)
		}
	}
	if f.Target != "" {
		add("target = ?", f.Target)
	}
	if !f.Since.IsZero() {
		add("at >= ?", millis(f.Since))
	}
	if !f.Until.IsZero() {
		add("at < ?", millis(f.Until))
	}
	if f.Before > 0 {
		add("id < ?", f.Before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}
