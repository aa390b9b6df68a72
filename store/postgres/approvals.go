package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// approvalColumns selects an approval with the display names of its
// requester and decider, which live in the users table.
const approvalColumns = `
	SELECT a.id, a.session_id, a.tool_call_id, a.tool_name, a.summary,
	       a.requester, coalesce(ru.name, ''), a.approvers, a.status,
	       coalesce(a.decided_by, ''), coalesce(du.name, ''), a.refs,
	       a.expires_at, a.created_at, a.decided_at, a.mandatory, a.risks, a.private
	FROM approvals a
	LEFT JOIN users ru ON ru.key = a.requester
	LEFT JOIN users du ON du.key = a.decided_by`

// CreateApproval records a pending approval and returns the stored record.
// A tool call asks once: when (SessionID, ToolCallID) already has an
// approval, that one is returned untouched, with created false. An unknown
// session is store.ErrNotFound.
//
// ON CONFLICT (session_id, tool_call_id) DO NOTHING decides between
// processes creating the same approval at once: the loser's insert waits
// for the winner's commit, inserts nothing, and the SELECT that follows
// (a new snapshot under READ COMMITTED) reads the winner's record.
func (db *DB) CreateApproval(ctx context.Context, rec approvals.Record) (stored approvals.Record, created bool, err error) {
	if rec.ID == "" || rec.SessionID == "" || rec.ToolCallID == "" {
		return approvals.Record{}, false, errors.New("postgres: create approval: id, session and tool call id are required")
	}
	cols, err := rowdata.EncodeApproval(rec)
	if err != nil {
		return approvals.Record{}, false, fmt.Errorf("postgres: create approval %q: %w", rec.ID, err)
	}
	err = db.tx(ctx, func(tx pgx.Tx) error {
		// The conflict target is the tool call only: an id collision must
		// fail loudly rather than return someone else's approval.
		tag, err := tx.Exec(ctx, `
			INSERT INTO approvals (id, session_id, tool_call_id, tool_name, summary, requester,
			                       approvers, status, refs, expires_at, created_at, mandatory, risks, private)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10, $11, $12, $13)
			ON CONFLICT (session_id, tool_call_id) DO NOTHING`,
			rec.ID, rec.SessionID, rec.ToolCallID, rec.ToolName, rec.Summary, rec.Requester,
			cols.Approvers, cols.Refs, ts(rec.ExpiresAt), ts(rec.CreatedAt), rec.Mandatory, cols.Risks, rec.Private)
		if isForeignKeyViolation(err) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		created = tag.RowsAffected() == 1
		if created {
			if err := rememberName(ctx, tx, rec.Requester, rec.RequesterName, ts(rec.CreatedAt)); err != nil {
				return err
			}
		}
		stored, err = scanApproval(tx.QueryRow(ctx,
			approvalColumns+` WHERE a.session_id = $1 AND a.tool_call_id = $2`, rec.SessionID, rec.ToolCallID))
		return err
	})
	if err != nil {
		return approvals.Record{}, false, fmt.Errorf("postgres: create approval for call %q of session %q: %w", rec.ToolCallID, rec.SessionID, err)
	}
	return stored, created, nil
}

// Approval returns the approval id; ok is false when there is none.
func (db *DB) Approval(ctx context.Context, id string) (rec approvals.Record, ok bool, err error) {
	rec, err = scanApproval(db.pool.QueryRow(ctx, approvalColumns+` WHERE a.id = $1`, id))
	if noRows(err) {
		return approvals.Record{}, false, nil
	}
	if err != nil {
		return approvals.Record{}, false, fmt.Errorf("postgres: approval %q: %w", id, err)
	}
	return rec, true, nil
}

// DecideApproval moves a pending approval to status (approved, denied or
// expired) and reports whether this call did it. An approval or denial at
// or after the deadline loses, so a click can never beat an expiry that is
// merely late. by is the decider (zero for an expiry).
//
// The decision is one conditional UPDATE, as in SQLite; across processes
// PostgreSQL's row lock makes concurrent deciders queue on the row, and
// each re-checks status = 'pending' against the version the one before
// committed, so exactly one wins and the others change nothing.
func (db *DB) DecideApproval(ctx context.Context, id, status string, by chat.User, at time.Time) (won bool, err error) {
	var decidedBy *string // NULL for an expiry
	switch status {
	case approvals.StatusApproved, approvals.StatusDenied:
		if by.Platform == "" || by.ID == "" {
			return false, fmt.Errorf("postgres: decide approval %q: %s needs a decider", id, status)
		}
		key := by.Key()
		decidedBy = &key
	case approvals.StatusExpired:
	default:
		return false, fmt.Errorf("postgres: decide approval %q: invalid status %q", id, status)
	}
	err = db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3
			WHERE id = $4 AND status = 'pending' AND ($1 = 'expired' OR expires_at > $3)`,
			status, decidedBy, ts(at), id)
		if err != nil {
			return err
		}
		won = tag.RowsAffected() == 1
		if won && decidedBy != nil {
			return rememberName(ctx, tx, *decidedBy, by.Name, ts(at))
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("postgres: decide approval %q: %w", id, err)
	}
	return won, nil
}

// SetApprovalRefs records the messages that show approval id. An unknown
// id is store.ErrNotFound.
func (db *DB) SetApprovalRefs(ctx context.Context, id string, refs []chat.MessageRef) error {
	enc, err := rowdata.EncodeRefs(refs)
	if err != nil {
		return fmt.Errorf("postgres: set refs of approval %q: %w", id, err)
	}
	tag, err := db.pool.Exec(ctx, `UPDATE approvals SET refs = $1 WHERE id = $2`, enc, id)
	if err != nil {
		return fmt.Errorf("postgres: set refs of approval %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: approval %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// ExpiredApprovals lists the pending approvals whose deadline is at or
// before now, earliest first: the expiry sweep's work.
func (db *DB) ExpiredApprovals(ctx context.Context, now time.Time) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.status = 'pending' AND a.expires_at <= $1 ORDER BY a.expires_at, a.id COLLATE "C"`, ts(now))
	if err != nil {
		return nil, fmt.Errorf("postgres: expired approvals: %w", err)
	}
	return recs, nil
}

// SessionApprovals lists every approval of a session, pending or decided,
// oldest first.
func (db *DB) SessionApprovals(ctx context.Context, sessionID string) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.session_id = $1 ORDER BY a.created_at, a.id COLLATE "C"`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("postgres: approvals of session %q: %w", sessionID, err)
	}
	return recs, nil
}

// DecidedApprovals lists the approvals decided (or expired) at or after
// since, in decision order.
func (db *DB) DecidedApprovals(ctx context.Context, since time.Time) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.status <> 'pending' AND a.decided_at >= $1 ORDER BY a.decided_at, a.id COLLATE "C"`, ts(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: approvals decided since %s: %w", since.Format(time.RFC3339), err)
	}
	return recs, nil
}

// UndecidedApprovals lists the pending approvals of every session, oldest
// first.
func (db *DB) UndecidedApprovals(ctx context.Context) ([]approvals.Record, error) {
	recs, err := db.approvals(ctx, `
		WHERE a.status = 'pending' ORDER BY a.created_at, a.id COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres: pending approvals: %w", err)
	}
	return recs, nil
}

// ApprovalHistory lists the decided and expired approvals f lets through,
// newest decision first, at most limit. An empty filter field (a NULL
// Since) matches every row, so the query is one fixed text.
func (db *DB) ApprovalHistory(ctx context.Context, f approvals.HistoryFilter, limit int) ([]approvals.Record, error) {
	if err := f.Check(limit); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	recs, err := db.approvals(ctx, `
		WHERE a.status <> 'pending' AND ($1 = '' OR a.status = $1)
		  AND ($2 = '' OR a.requester = $2) AND ($3 = '' OR a.decided_by = $3)
		  AND ($4 = '' OR a.tool_name = $4) AND ($5::timestamptz IS NULL OR a.decided_at >= $5)
		ORDER BY a.decided_at DESC, a.id COLLATE "C" DESC LIMIT $6`,
		f.Status, f.Requester, f.DecidedBy, f.ToolName, optTS(f.Since), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: approval history: %w", err)
	}
	return recs, nil
}

// approvals runs approvalColumns with the given WHERE … ORDER BY clause.
// Text in an ORDER BY is compared bytewise (COLLATE "C"), as SQLite
// compares it, whatever the database's collation.
func (db *DB) approvals(ctx context.Context, where string, args ...any) ([]approvals.Record, error) {
	rows, err := db.pool.Query(ctx, approvalColumns+where, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanApproval)
}

// collect scans every row with scan, closing rows.
func collect[T any](rows pgx.Rows, scan func(rowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanApproval reads one row of approvalColumns.
func scanApproval(row rowScanner) (approvals.Record, error) {
	var (
		rec       approvals.Record
		cols      rowdata.ApprovalJSON
		decidedAt *time.Time
	)
	if err := row.Scan(&rec.ID, &rec.SessionID, &rec.ToolCallID, &rec.ToolName, &rec.Summary,
		&rec.Requester, &rec.RequesterName, &cols.Approvers, &rec.Status,
		&rec.DecidedBy, &rec.DecidedByName, &cols.Refs,
		&rec.ExpiresAt, &rec.CreatedAt, &decidedAt, &rec.Mandatory, &cols.Risks, &rec.Private); err != nil {
		return approvals.Record{}, err
	}
	if err := rowdata.DecodeApproval(&rec, cols); err != nil {
		return approvals.Record{}, err
	}
	rec.ExpiresAt, rec.CreatedAt, rec.DecidedAt = fromTS(rec.ExpiresAt), fromTS(rec.CreatedAt), fromOptTS(decidedAt)
	return rec, nil
}

// rememberName records a user's display name, which approval records
// show; a newer name replaces an older one, an empty name changes nothing.
func rememberName(ctx context.Context, tx pgx.Tx, key, name string, now time.Time) error {
	if key == "" || name == "" {
		return nil
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO users (key, platform, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (key) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
		WHERE users.name IS DISTINCT FROM excluded.name`,
		key, rowdata.PlatformOf(key), name, now)
	if err != nil {
		return fmt.Errorf("remember name of %q: %w", key, err)
	}
	return nil
}
