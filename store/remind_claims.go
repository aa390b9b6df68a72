package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// ClaimDue claims, in one transaction, up to limit active items due at
// now, earliest first. For each it records a claim row (item,
// occurrence): unique, so an occurrence is claimed once ever, and a
// second ClaimDue at the same now finds nothing. It advances each item as
// remind.Due decides with grace: a recurrence to its first occurrence
// after now, skipping those missed; a one-off to done. It returns the new
// claims, each with the item as it was. It also drops delivered claims
// older than rowdata.KeepDelivered.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]remind.Claim, error) {
	var out []remind.Claim
	err := db.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `
			SELECT `+rowdata.ItemColumns+` FROM reminders
			WHERE status = 'active' AND next <= ? ORDER BY next, id LIMIT ?`, millis(now), limit)
		if err != nil {
			return err
		}
		var due []remind.Item
		for rows.Next() {
			it, err := scanItem(rows)
			if err != nil {
				rows.Close()
				return err
			}
			due = append(due, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, it := range due {
			d := remind.Due(it, now, grace)
			res, err := tx.ExecContext(ctx, `
				INSERT INTO reminder_claims (item_id, occurrence, claimed_at) VALUES (?, ?, ?)
				ON CONFLICT (item_id, occurrence) DO NOTHING`, it.ID, millis(it.Next), millis(now))
			if err != nil {
				return err
			}
			if d.Done {
				_, err = tx.ExecContext(ctx, `UPDATE reminders SET status = 'done' WHERE id = ?`, it.ID)
			} else {
				_, err = tx.ExecContext(ctx, `UPDATE reminders SET next = ? WHERE id = ?`, millis(d.Next), it.ID)
			}
			if err != nil {
				return err
			}
			// An occurrence claimed before is advanced past, not
			// delivered again.
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				out = append(out, remind.Claim{Item: it, Occurrence: it.Next, Decision: d})
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM reminder_claims WHERE delivered_at < ?`, millis(now.Add(-rowdata.KeepDelivered)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim due items: %w", err)
	}
	return out, nil
}

// PendingClaims lists the claims not yet delivered, in the order they were
// claimed. Each carries its item as it was claimed (active, Next at the
// occurrence) and a Decision that says only where the item has moved on
// to (Next, Done); its lateness is for the deliverer to judge
// (remind.Claim.Judge).
func (db *DB) PendingClaims(ctx context.Context) ([]remind.Claim, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT c.occurrence, `+rowdata.Qualified("r", rowdata.ItemColumns)+`
		FROM reminder_claims c JOIN reminders r ON r.id = c.item_id
		WHERE c.delivered_at IS NULL ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("store: pending claims: %w", err)
	}
	defer rows.Close()
	var out []remind.Claim
	for rows.Next() {
		var occ int64
		it, err := scanItem(prefixed{rows, &occ})
		if err != nil {
			return nil, fmt.Errorf("store: pending claims: %w", err)
		}
		out = append(out, rowdata.PendingClaim(it, fromMillis(occ)))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending claims: %w", err)
	}
	return out, nil
}

// prefixed scans one extra leading column into first, then the rest as
// the wrapped scanner's caller asks.
type prefixed struct {
	rows  *sql.Rows
	first any
}

func (p prefixed) Scan(dest ...any) error { return p.rows.Scan(append([]any{p.first}, dest...)...) }

// ClaimDelivered marks c delivered. A claim already marked, or dropped
// because its item was cancelled, is left as it is: delivering twice is
// the contract, not an error.
func (db *DB) ClaimDelivered(ctx context.Context, c remind.Claim) error {
	if _, err := db.w.ExecContext(ctx, `
		UPDATE reminder_claims SET delivered_at = ?
		WHERE item_id = ? AND occurrence = ? AND delivered_at IS NULL`,
		millis(db.now()), c.Item.ID, millis(c.Occurrence)); err != nil {
		return fmt.Errorf("store: claim delivered: %w", err)
	}
	return nil
}

// NextItemDue is the earliest Next of the active items; false when there
// is none. The (status, next) index answers it without a scan.
func (db *DB) NextItemDue(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	if err := db.r.QueryRowContext(ctx, `SELECT min(next) FROM reminders WHERE status = 'active'`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("store: next item due: %w", err)
	}
	if !next.Valid {
		return time.Time{}, false, nil
	}
	return fromMillis(next.Int64), true, nil
}

// ReminderStats counts the items by status, the earliest due, the active
// ones overdue by more than remind.LateAfter at now, and the claims not
// yet delivered: for parley doctor.
func (db *DB) ReminderStats(ctx context.Context, now time.Time) (remind.Stats, error) {
	var s remind.Stats
	var next sql.NullInt64
	err := db.r.QueryRowContext(ctx, `
		SELECT
			(SELECT count(*) FROM reminders WHERE status = 'active'),
			(SELECT count(*) FROM reminders WHERE status = 'paused'),
			(SELECT count(*) FROM reminders WHERE status = 'done'),
			(SELECT count(*) FROM reminders WHERE status = 'cancelled'),
			(SELECT min(next) FROM reminders WHERE status = 'active'),
			(SELECT count(*) FROM reminders WHERE status = 'active' AND next < ?),
			(SELECT count(*) FROM reminder_claims WHERE delivered_at IS NULL)`,
		millis(now.Add(-remind.LateAfter)),
	).Scan(&s.Active, &s.Paused, &s.Done, &s.Cancelled, &next, &s.Overdue, &s.Undelivered)
	if err != nil {
		return remind.Stats{}, fmt.Errorf("store: reminder stats: %w", err)
	}
	if next.Valid {
		s.Next = fromMillis(next.Int64)
	}
	return s, nil
}
