package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ approvals.Store = (*DB)(nil)

// approvalColumns selects an approval with the display names of its
// requester and decider. The names live in the users table, keyed like the
// requester and decided_by columns, so a record read after a restart can
// still say who asked and who decided.
const approvalColumns = `
	SELECT a.id, a.session_id, a.tool_call_id, a.tool_name, a.summary,
	       a.requester, coalesce(ru.name, ''), a.approvers, a.status,
	       coalesce(a.decided_by, ''), coalesce(du.name, ''), a.refs,
	       a.expires_at, a.created_at, coalesce(a.decided_at, 0), a.mandatory, a.risks, a.private
	FROM approvals a
	LEFT JOIN users ru ON ru.key = a.requester
	LEFT JOIN users du ON du.key = a.decided_by`

// CreateApproval records a pending approval and returns the stored record.
// A tool call asks once: when (SessionID, ToolCallID) already has an
// approval (a re-run after a crash), that one is returned untouched, with
// created false. An unknown session is ErrNotFound.
func (db *DB) CreateApproval(ctx context.Context, rec approvals.Record) (stored approvals.Record, created bool, err error) {
	if rec.ID == "" || rec.SessionID == "" || rec.ToolCallID == "" {
		return approvals.Record{}, false, errors.New("store: create approval: id, session and tool call id are required")
	}
	cols, err := rowdata.EncodeApproval(rec)
	if err != nil {
		return approvals.Record{}, false, fmt.Errorf("store: create approval %q: %w", rec.ID, err)
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, rec.SessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		// The conflict target is the tool call only: an id collision must
		// fail loudly rather than return someone else's approval.
		res, err := tx.ExecContext(ctx, `
			INSERT INTO approvals (id, session_id, tool_call_id, tool_name, summary, requester,
			                       approvers, status, refs, expires_at, created_at, mandatory, risks, private)
			VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id, tool_call_id) DO NOTHING`,
			rec.ID, rec.SessionID, rec.ToolCallID, rec.ToolName, rec.Summary, rec.Requester,
			cols.Approvers, cols.Refs, millis(rec.ExpiresAt), millis(rec.CreatedAt), rec.Mandatory, cols.Risks, rec.Private)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		created = n == 1
		if created {
			if err := rememberName(ctx, tx, rec.Requester, rec.RequesterName, millis(rec.CreatedAt)); err != nil {
				return err
			}
		}
		stored, err = scanApproval(tx.QueryRowContext(ctx,
			approvalColumns+` WHERE a.session_id = ? AND a.tool_call_id = ?`, rec.SessionID, rec.ToolCallID))
		return err
	})
	if err != nil {
		return approvals.Record{}, false, fmt.Errorf("store: create approval for call %q of session %q: %w", rec.ToolCallID, rec.SessionID, err)
	}
	return stored, created, nil
}

// Approval returns the approval id; ok is false when there is none.
func (db *DB) Approval(ctx context.Context, id string) (rec approvals.Record, ok bool, err error) {
	rec, err = scanApproval(db.r.QueryRowContext(ctx, approvalColumns+` WHERE a.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return approvals.Record{}, false, nil
	}
	if err != nil {
		return approvals.Record{}, false, fmt.Errorf("store: approval %q: %w", id, err)
	}
	return rec, true, nil
}

// DecideApproval moves a pending approval to status (approved, denied or
// expired) and reports whether this call did it. The decision is one
// conditional UPDATE: of any number of concurrent deciders (a double click,
// two approvers, a click against the expiry sweep, another process), exactly
// one wins and the others change nothing. An approval or denial at or after
// the deadline loses too, so a click can never beat an expiry that is
// merely late. by is the decider (zero for an expiry); their display name is
// remembered for records read later.
func (db *DB) DecideApproval(ctx context.Context, id, status string, by chat.User, at time.Time) (won bool, err error) {
	var decidedBy any // NULL for an expiry
	switch status {
	case approvals.StatusApproved, approvals.StatusDenied:
		if by.Platform == "" || by.ID == "" {
			return false, fmt.Errorf("store: decide approval %q: %s needs a decider", id, status)
		}
		decidedBy = by.Key()
	case approvals.StatusExpired:
	default:
		return false, fmt.Errorf("store: decide approval %q: invalid status %q", id, status)
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?
			WHERE id = ? AND status = 'pending' AND (? = 'expired' OR expires_at > ?)`,
			status, decidedBy, millis(at), id, status, millis(at))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		won = n == 1
		if won && decidedBy != nil {
			return rememberName(ctx, tx, by.Key(), by.Name, millis(at))
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: decide approval %q: %w", id, err)
	}
	return won, nil
}

// SetApprovalRefs records the messages that show approval id (the one with
// its buttons). An unknown id is ErrNotFound.
func (db *DB) SetApprovalRefs(ctx context.Context, id string, refs []chat.MessageRef) error {
	enc, err := rowdata.EncodeRefs(refs)
	if err != nil {
		return fmt.Errorf("store: set refs of approval %q: %w", id, err)
	}
	res, err := db.w.ExecContext(ctx, `UPDATE approvals SET refs = ? WHERE id = ?`, enc, id)
	if err != nil {
		return fmt.Errorf("store: set refs of approval %q: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: set refs of approval %q: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("store: approval %q: %w", id, ErrNotFound)
	}
	return nil
}

// ExpiredApprovals lists the pending approvals whose deadline is at or
// before now, earliest first: the expiry sweep's work.
func (db *DB) ExpiredApprovals(ctx context.Context, now time.Time) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.status = 'pending' AND a.expires_at <= ? ORDER BY a.expires_at, a.id`, millis(now))
	if err != nil {
		return nil, fmt.Errorf("store: expired approvals: %w", err)
	}
	return recs, nil
}

// SessionApprovals lists every approval of a session, pending or decided,
// oldest first.
func (db *DB) SessionApprovals(ctx context.Context, sessionID string) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.session_id = ? ORDER BY a.created_at, a.id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: approvals of session %q: %w", sessionID, err)
	}
	return recs, nil
}

// DecidedApprovals lists the approvals decided (or expired) at or after
// since, in decision order. It runs once at startup, to find decisions a
// crash may have kept from being acted on; it scans the table, which holds
// one small row per approval ever asked.
func (db *DB) DecidedApprovals(ctx context.Context, since time.Time) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.status <> 'pending' AND a.decided_at >= ? ORDER BY a.decided_at, a.id`, millis(since))
	if err != nil {
		return nil, fmt.Errorf("store: approvals decided since %s: %w", since.Format(time.RFC3339), err)
	}
	return recs, nil
}

// UndecidedApprovals lists the pending approvals of every session, oldest
// first. Pending ones are few: each expires within the approval expiry.
func (db *DB) UndecidedApprovals(ctx context.Context) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.status = 'pending' ORDER BY a.created_at, a.id`)
	if err != nil {
		return nil, fmt.Errorf("store: pending approvals: %w", err)
	}
	return recs, nil
}

// ApprovalHistory lists the decided and expired approvals f lets through,
// newest decision first, at most limit. An empty filter field matches
// every row, so the query is one fixed text whatever is filtered on.
func (db *DB) ApprovalHistory(ctx context.Context, f approvals.HistoryFilter, limit int) ([]approvals.Record, error) {
	if err := f.Check(limit); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	recs, err := db.approvals(ctx, `
		WHERE a.status <> 'pending' AND (?1 = '' OR a.status = ?1)
		  AND (?2 = '' OR a.requester = ?2) AND (?3 = '' OR a.decided_by = ?3)
		  AND (?4 = '' OR a.tool_name = ?4) AND a.decided_at >= ?5
		ORDER BY a.decided_at DESC, a.id DESC LIMIT ?6`,
		f.Status, f.Requester, f.DecidedBy, f.ToolName, sinceMillis(f.Since), limit)
	if err != nil {
		return nil, fmt.Errorf("store: approval history: %w", err)
	}
	return recs, nil
}

// sinceMillis is millis, with the zero time (no bound) before every
// stored time.
func sinceMillis(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return millis(t)
}

// approvals runs approvalColumns with the given WHERE … ORDER BY clause.
func (db *DB) approvals(ctx context.Context, where string, args ...any) ([]approvals.Record, error) {
	rows, err := db.r.QueryContext(ctx, approvalColumns+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var recs []approvals.Record
	for rows.Next() {
		rec, err := scanApproval(rows)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, rows.Err()
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// scanApproval reads one row of approvalColumns.
func scanApproval(row rowScanner) (approvals.Record, error) {
	var (
		rec                         approvals.Record
		cols                        rowdata.ApprovalJSON
		expires, created, decidedAt int64
	)
	if err := row.Scan(&rec.ID, &rec.SessionID, &rec.ToolCallID, &rec.ToolName, &rec.Summary,
		&rec.Requester, &rec.RequesterName, &cols.Approvers, &rec.Status,
		&rec.DecidedBy, &rec.DecidedByName, &cols.Refs,
		&expires, &created, &decidedAt, &rec.Mandatory, &cols.Risks, &rec.Private); err != nil {
		return approvals.Record{}, err
	}
	if err := rowdata.DecodeApproval(&rec, cols); err != nil {
		return approvals.Record{}, err
	}
	rec.ExpiresAt, rec.CreatedAt = fromMillis(expires), fromMillis(created)
	if decidedAt != 0 {
		rec.DecidedAt = fromMillis(decidedAt)
	}
	return rec, nil
}

// rememberName records a user's display name, which approval records show.
// The users table keys people the same way; a newer name replaces an older
// one. An empty name changes nothing.
func rememberName(ctx context.Context, tx *sql.Tx, key, name string, now int64) error {
	if key == "" || name == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO users (key, platform, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
		WHERE name IS NOT excluded.name`,
		key, rowdata.PlatformOf(key), name, now, now)
	if err != nil {
		return fmt.Errorf("remember name of %q: %w", key, err)
	}
	return nil
}
