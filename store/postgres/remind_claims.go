package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// ClaimDue claims, in one transaction, up to limit active items due at
// now, earliest first. For each it records a claim row (item, occurrence),
// unique, so an occurrence is claimed once ever, and advances the item as
// remind.Due decides with grace. It returns the new claims, each with the
// item as it was, and drops delivered claims older than rowdata.KeepDelivered.
//
// Several processes run the loop at once. SQLite's single writer made
// their claims take turns; here the due items are read with FOR UPDATE
// SKIP LOCKED: each process locks the due items no other is claiming and
// passes over the rest, instead of queueing behind them and then finding
// them advanced. A process that reads an item after another committed its
// claim sees it advanced (PostgreSQL re-checks a locked row's WHERE against
// the committed version), and the unique (item, occurrence) row is the
// last guard: an occurrence claimed before is advanced past, never
// delivered twice.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]remind.Claim, error) {
	var out []remind.Claim
	at := ts(now)
	err := db.tx(ctx, func(tx pgx.Tx) error {
		out = nil // a retried transaction starts over
		rows, err := tx.Query(ctx, `
			SELECT `+rowdata.ItemColumns+` FROM reminders
			WHERE status = 'active' AND next <= $1 ORDER BY next, id LIMIT $2
			FOR UPDATE SKIP LOCKED`, at, sqlLimit(limit))
		if err != nil {
			return err
		}
		due, err := collect(rows, func(r rowScanner) (remind.Item, error) { return scanItem(r) })
		if err != nil {
			return err
		}
		for _, it := range due {
			d := remind.Due(it, now, grace)
			tag, err := tx.Exec(ctx, `
				INSERT INTO reminder_claims (item_id, occurrence, claimed_at) VALUES ($1, $2, $3)
				ON CONFLICT (item_id, occurrence) DO NOTHING`, it.ID, ts(it.Next), at)
			if err != nil {
				return err
			}
			if d.Done {
				_, err = tx.Exec(ctx, `UPDATE reminders SET status = 'done' WHERE id = $1`, it.ID)
			} else {
				_, err = tx.Exec(ctx, `UPDATE reminders SET next = $1 WHERE id = $2`, ts(d.Next), it.ID)
			}
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				out = append(out, remind.Claim{Item: it, Occurrence: it.Next, Decision: d})
			}
		}
		// Old rows another claimer is deleting are left to it (SKIP
		// LOCKED): the clean-up never waits, nor deadlocks with another.
		_, err = tx.Exec(ctx, `
			DELETE FROM reminder_claims WHERE id IN (
				SELECT id FROM reminder_claims WHERE delivered_at < $1 FOR UPDATE SKIP LOCKED)`,
			ts(now.Add(-rowdata.KeepDelivered)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: claim due items: %w", err)
	}
	return out, nil
}

// PendingClaims lists the claims not yet delivered, in the order they were
// claimed, each with its item as it was claimed and a Decision that says
// only where the item has moved on to.
func (db *DB) PendingClaims(ctx context.Context) ([]remind.Claim, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT c.occurrence, `+rowdata.Qualified("r", rowdata.ItemColumns)+`
		FROM reminder_claims c JOIN reminders r ON r.id = c.item_id
		WHERE c.delivered_at IS NULL ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: pending claims: %w", err)
	}
	out, err := collect(rows, func(r rowScanner) (remind.Claim, error) {
		var occ time.Time
		it, err := scanItem(r, &occ)
		if err != nil {
			return remind.Claim{}, err
		}
		return rowdata.PendingClaim(it, fromTS(occ)), nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: pending claims: %w", err)
	}
	return out, nil
}

// ClaimDelivered marks c delivered. A claim already marked, or dropped
// because its item was cancelled, is left as it is.
func (db *DB) ClaimDelivered(ctx context.Context, c remind.Claim) error {
	if _, err := db.pool.Exec(ctx, `
		UPDATE reminder_claims SET delivered_at = $1
		WHERE item_id = $2 AND occurrence = $3 AND delivered_at IS NULL`,
		ts(db.now()), c.Item.ID, ts(c.Occurrence)); err != nil {
		return fmt.Errorf("postgres: claim delivered: %w", err)
	}
	return nil
}

// NextItemDue is the earliest Next of the active items; false when there
// is none.
func (db *DB) NextItemDue(ctx context.Context) (time.Time, bool, error) {
	var next *time.Time
	if err := db.pool.QueryRow(ctx, `SELECT min(next) FROM reminders WHERE status = 'active'`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("postgres: next item due: %w", err)
	}
	return fromOptTS(next), next != nil, nil
}

// ReminderStats counts the items by status, the earliest due, the active
// ones overdue by more than remind.LateAfter at now, and the claims not yet
// delivered.
func (db *DB) ReminderStats(ctx context.Context, now time.Time) (remind.Stats, error) {
	var s remind.Stats
	var next *time.Time
	err := db.pool.QueryRow(ctx, `
		SELECT
			count(*) FILTER (WHERE status = 'active'),
			count(*) FILTER (WHERE status = 'paused'),
			count(*) FILTER (WHERE status = 'done'),
			count(*) FILTER (WHERE status = 'cancelled'),
			min(next) FILTER (WHERE status = 'active'),
			count(*) FILTER (WHERE status = 'active' AND next < $1),
			(SELECT count(*) FROM reminder_claims WHERE delivered_at IS NULL)
		FROM reminders`,
		ts(now.Add(-remind.LateAfter)),
	).Scan(&s.Active, &s.Paused, &s.Done, &s.Cancelled, &next, &s.Overdue, &s.Undelivered)
	if err != nil {
		return remind.Stats{}, fmt.Errorf("postgres: reminder stats: %w", err)
	}
	s.Next = fromOptTS(next)
	return s, nil
}
