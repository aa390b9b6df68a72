package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The audit log (bot.AuditLog), as store/audit.go on SQLite: rows only
// ever added, read newest first by id (an identity column).

var _ bot.AuditLog = (*DB)(nil)

// Audit adds e; its ID is the row's.
func (db *DB) Audit(ctx context.Context, e bot.AuditEntry) error {
	if err := rowdata.AuditCheck(e); err != nil {
		return fmt.Errorf("postgres: audit: %w", err)
	}
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO audit_log (at, actor, action, target, detail, via) VALUES ($1, $2, $3, $4, $5, $6)`,
		ts(e.At), e.Actor, e.Action, e.Target, e.Detail, e.Via); err != nil {
		return fmt.Errorf("postgres: audit %s: %w", e.Action, err)
	}
	return nil
}

// AuditEntries lists the entries f selects, newest first, at most limit.
func (db *DB) AuditEntries(ctx context.Context, f bot.AuditFilter, limit int) ([]bot.AuditEntry, error) {
	if err := rowdata.AuditLimit(limit); err != nil {
		return nil, fmt.Errorf("postgres: audit entries: %w", err)
	}
	where, args := auditWhere(f)
	args = append(args, limit)
	rows, err := db.pool.Query(ctx, `
		SELECT id, at, actor, action, target, detail, via FROM audit_log`+where+`
		ORDER BY id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: audit entries: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (bot.AuditEntry, error) {
		var e bot.AuditEntry
		err := row.Scan(&e.ID, &e.At, &e.Actor, &e.Action, &e.Target, &e.Detail, &e.Via)
		e.At = fromTS(e.At)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: audit entries: %w", err)
	}
	return out, nil
}

// auditWhere is the WHERE clause f puts on audit_log ("" for none) and
// its arguments, numbered from $1. An action's prefix is a range of
// bytes (the column is COLLATE "C", as SQLite's BINARY), so that % and _
// in it are only themselves.
func auditWhere(f bot.AuditFilter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, cond+" $"+strconv.Itoa(len(args)))
	}
	if f.Actor != "" {
		add("actor =", f.Actor)
	}
	if f.Action != "" {
		lo, hi, prefix := rowdata.AuditAction(f.Action)
		if prefix {
			add("action >=", lo)
			add("action <", hi)
		} else {
			add("action =", lo)
		}
	}
	if f.Target != "" {
		add("target =", f.Target)
	}
	if !f.Since.IsZero() {
		add("at >=", ts(f.Since))
	}
	if !f.Until.IsZero() {
		add("at <", ts(f.Until))
	}
	if f.Before > 0 {
		add("id <", f.Before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}
