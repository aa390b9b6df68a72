package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Reminders and scheduled runs: the items here, their claims in
// remind_claims.go.

var (
	_ remind.ItemStore  = (*DB)(nil)
	_ remind.ItemLister = (*DB)(nil)
)

func scanItem(row rowScanner) (remind.Item, error) {
	var it remind.Item
	var targets string
	var next, created, lastRun int64
	err := row.Scan(&it.ID, &it.Kind, &it.Scope, &it.Owner, &it.OwnerName, &targets, &it.Place.Platform, &it.Place.Space,
		&it.Place.Chat, &it.Place.Thread, &it.Place.Direct, &it.Text, &it.Spec, &it.Zone, &next, &it.Status,
		&created, &lastRun, &it.LastResult, &it.Failures)
	if err != nil {
		return it, err
	}
	if it.Targets, err = rowdata.DecodeList(targets); err != nil {
		return it, fmt.Errorf("targets: %w", err)
	}
	it.Next, it.CreatedAt = fromMillis(next), fromMillis(created)
	if lastRun != 0 {
		it.LastRun = fromMillis(lastRun)
	}
	return it, nil
}

// AddItem adds it and returns its id. Its Status must be empty (active),
// active or paused; a zero CreatedAt is now. The cap is checked in the
// same transaction as the insert, so two adds at once cannot both take
// the last place: it refuses with remind.ErrCap when the owner already
// has maxActive active or paused items in the scope (maxActive <= 0: no
// cap).
func (db *DB) AddItem(ctx context.Context, it remind.Item, maxActive int) (int64, error) {
	it, err := rowdata.NewItem(it, db.now)
	if err != nil {
		return 0, fmt.Errorf("store: add item: %w", err)
	}
	targets, err := rowdata.EncodeList(it.Targets)
	if err != nil {
		return 0, fmt.Errorf("store: add item: %w", err)
	}
	var id int64
	err = db.write(ctx, func(tx *sql.Tx) error {
		if maxActive > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `
				SELECT count(*) FROM reminders
				WHERE scope = ? AND owner = ? AND status IN ('active', 'paused')`,
				it.Scope, it.Owner).Scan(&n); err != nil {
				return err
			}
			if n >= maxActive {
				return fmt.Errorf("%w: %d in this scope already, the most allowed", remind.ErrCap, n)
			}
		}
		res, err := tx.ExecContext(ctx, `
			INSERT INTO reminders (kind, scope, owner, owner_name, targets, platform, space, chat, thread, direct,
				text, spec, zone, next, status, created_at, last_run, last_result, failures)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			it.Kind, it.Scope, it.Owner, it.OwnerName, targets, it.Place.Platform, it.Place.Space, it.Place.Chat,
			it.Place.Thread, it.Place.Direct, it.Text, it.Spec, it.Zone, millis(it.Next), it.Status,
			millis(it.CreatedAt), optionalMillis(it.LastRun), it.LastResult, it.Failures)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: add item: %w", err)
	}
	return id, nil
}

// optionalMillis is millis, with the zero time stored as 0.
func optionalMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return millis(t)
}

// Item reads one item, whatever its status; ErrNotFound when there is
// none.
func (db *DB) Item(ctx context.Context, id int64) (remind.Item, error) {
	it, err := scanItem(db.r.QueryRowContext(ctx, `SELECT `+rowdata.ItemColumns+` FROM reminders WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("item %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return remind.Item{}, fmt.Errorf("store: item: %w", err)
	}
	return it, nil
}

// Items lists scope's active and paused items of owner ("": everyone's),
// by Next then ID.
func (db *DB) Items(ctx context.Context, scope, owner string) ([]remind.Item, error) {
	return db.listItems(ctx, `scope = ?1 AND (?2 = '' OR owner = ?2)`, scope, owner)
}

// ItemsOf lists owner's active and paused items in every scope, by Next
// then ID: all a person has asked for, wherever they asked (the console's
// page of a person).
func (db *DB) ItemsOf(ctx context.Context, owner string) ([]remind.Item, error) {
	return db.listItems(ctx, `owner = ?1`, owner)
}

// listItems lists the active and paused items where says, by Next then
// ID.
func (db *DB) listItems(ctx context.Context, where string, args ...any) ([]remind.Item, error) {
	out, err := db.queryItems(ctx, `
		SELECT `+rowdata.ItemColumns+` FROM reminders
		WHERE `+where+` AND status IN ('active', 'paused')
		ORDER BY next, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: items: %w", err)
	}
	return out, nil
}

// AllItems lists up to limit active and paused items matching f, across
// scopes, by scope, next, then id (remind.ItemLister).
func (db *DB) AllItems(ctx context.Context, f remind.ItemFilter, limit int) ([]remind.Item, error) {
	out, err := db.queryItems(ctx, `
		SELECT `+rowdata.ItemColumns+` FROM reminders
		WHERE status IN ('active', 'paused') AND (?1 = '' OR scope = ?1) AND (?2 = '' OR owner = ?2)
			AND (?3 = '' OR kind = ?3)
		ORDER BY scope, next, id LIMIT ?4 OFFSET ?5`, f.Scope, f.Owner, string(f.Kind), limit, max(f.Offset, 0))
	if err != nil {
		return nil, fmt.Errorf("store: all items: %w", err)
	}
	return out, nil
}

// queryItems reads the items query selects (rowdata.ItemColumns).
func (db *DB) queryItems(ctx context.Context, query string, args ...any) ([]remind.Item, error) {
	rows, err := db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []remind.Item
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// liveItem reads item id in tx: ErrNotFound when there is none,
// remind.ErrFinished when it is done or cancelled.
func liveItem(ctx context.Context, tx *sql.Tx, id int64) (remind.Item, error) {
	it, err := scanItem(tx.QueryRowContext(ctx, `SELECT `+rowdata.ItemColumns+` FROM reminders WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return it, fmt.Errorf("item %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return it, err
	}
	if rowdata.Finished(it) {
		return it, fmt.Errorf("item %d: %w", id, remind.ErrFinished)
	}
	return it, nil
}

// CancelItem cancels an active or paused item. Its claims not yet
// delivered are dropped with it: a reminder cancelled while its delivery
// was failing, or before a crash was recovered, is not sent after all.
func (db *DB) CancelItem(ctx context.Context, id int64) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := liveItem(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE reminders SET status = 'cancelled' WHERE id = ?`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM reminder_claims WHERE item_id = ? AND delivered_at IS NULL`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: cancel item: %w", err)
	}
	return nil
}

// PauseItem pauses an active item (paused) or resumes a paused one, and
// returns it as it now is; pausing a paused item or resuming an active
// one changes nothing. The caller passes now rather than the store
// reading its clock, so that the loop's clock decides. Resuming a
// recurrence moves Next to its first occurrence after now (those missed
// while paused are skipped, not reported) and clears Failures; a
// recurrence with no occurrence left is done. A resumed one-off keeps its
// time: if that passed, the loop finds it due and reports it late or
// missed.
func (db *DB) PauseItem(ctx context.Context, id int64, paused bool, now time.Time) (remind.Item, error) {
	var it remind.Item
	err := db.write(ctx, func(tx *sql.Tx) error {
		var err error
		if it, err = liveItem(ctx, tx, id); err != nil {
			return err
		}
		if !rowdata.Pause(&it, paused, now) {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE reminders SET status = ?, next = ?, failures = ? WHERE id = ?`,
			it.Status, millis(it.Next), it.Failures, id)
		return err
	})
	if err != nil {
		return remind.Item{}, fmt.Errorf("store: pause item: %w", err)
	}
	return it, nil
}

// RecordItemRun records a scheduled run's outcome at now: LastRun and
// LastResult, and Failures reset by a success or counted up by a failure.
// The failure that makes remind.MaxFailures in a row pauses an active
// item, and only that one returns paused = true, so the owner is told
// once.
func (db *DB) RecordItemRun(ctx context.Context, id int64, ok bool, result string, now time.Time) (paused bool, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		var failures int
		var status remind.Status
		err := tx.QueryRowContext(ctx, `
			UPDATE reminders SET last_run = ?, last_result = ?,
				failures = CASE WHEN ? THEN 0 ELSE failures + 1 END
			WHERE id = ? RETURNING failures, status`,
			millis(now), result, ok, id).Scan(&failures, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("item %d: %w", id, ErrNotFound)
		}
		if err != nil || failures < remind.MaxFailures || status != remind.StatusActive {
			return err
		}
		paused = true
		_, err = tx.ExecContext(ctx, `UPDATE reminders SET status = 'paused' WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: record item run: %w", err)
	}
	return paused, nil
}
