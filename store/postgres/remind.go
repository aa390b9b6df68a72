package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Reminders and scheduled runs: the items here, their claims in
// remind_claims.go.

func scanItem(row rowScanner, extra ...any) (remind.Item, error) {
	var it remind.Item
	var targets string
	var lastRun *time.Time
	err := row.Scan(append(extra, &it.ID, &it.Kind, &it.Scope, &it.Owner, &it.OwnerName, &targets, &it.Place.Platform,
		&it.Place.Space, &it.Place.Chat, &it.Place.Thread, &it.Place.Direct, &it.Text, &it.Spec, &it.Zone, &it.Next,
		&it.Status, &it.CreatedAt, &lastRun, &it.LastResult, &it.Failures)...)
	if err != nil {
		return it, err
	}
	if it.Targets, err = rowdata.DecodeList(targets); err != nil {
		return it, fmt.Errorf("targets: %w", err)
	}
	it.Next, it.CreatedAt, it.LastRun = fromTS(it.Next), fromTS(it.CreatedAt), fromOptTS(lastRun)
	return it, nil
}

// AddItem adds it and returns its id. Its Status must be empty (active),
// active or paused; a zero CreatedAt is now. It refuses with remind.ErrCap
// when the owner already has maxActive active or paused items in the
// scope (maxActive <= 0: no cap).
//
// SQLite counted and inserted under its write lock. Here the count and the
// insert hold an advisory lock on (scope, owner), so two adds at once, in
// any processes, cannot both take the last place: the second counts after
// the first committed.
func (db *DB) AddItem(ctx context.Context, it remind.Item, maxActive int) (int64, error) {
	it, err := rowdata.NewItem(it, db.now)
	if err != nil {
		return 0, fmt.Errorf("postgres: add item: %w", err)
	}
	targets, err := rowdata.EncodeList(it.Targets)
	if err != nil {
		return 0, fmt.Errorf("postgres: add item: %w", err)
	}
	var id int64
	err = db.tx(ctx, func(tx pgx.Tx) error {
		if maxActive > 0 {
			if err := lockKey(ctx, tx, "reminders", it.Scope, it.Owner); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `
				SELECT count(*) FROM reminders
				WHERE scope = $1 AND owner = $2 AND status IN ('active', 'paused')`,
				it.Scope, it.Owner).Scan(&n); err != nil {
				return err
			}
			if n >= maxActive {
				return fmt.Errorf("%w: %d in this scope already, the most allowed", remind.ErrCap, n)
			}
		}
		return tx.QueryRow(ctx, `
			INSERT INTO reminders (kind, scope, owner, owner_name, targets, platform, space, chat, thread, direct,
				text, spec, zone, next, status, created_at, last_run, last_result, failures)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
			RETURNING id`,
			it.Kind, it.Scope, it.Owner, it.OwnerName, targets, it.Place.Platform, it.Place.Space, it.Place.Chat,
			it.Place.Thread, it.Place.Direct, it.Text, it.Spec, it.Zone, ts(it.Next), it.Status,
			ts(it.CreatedAt), optTS(it.LastRun), it.LastResult, it.Failures).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: add item: %w", err)
	}
	return id, nil
}

// Item reads one item, whatever its status; store.ErrNotFound when there
// is none.
func (db *DB) Item(ctx context.Context, id int64) (remind.Item, error) {
	it, err := scanItem(db.pool.QueryRow(ctx, `SELECT `+rowdata.ItemColumns+` FROM reminders WHERE id = $1`, id))
	if noRows(err) {
		err = fmt.Errorf("item %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return remind.Item{}, fmt.Errorf("postgres: item: %w", err)
	}
	return it, nil
}

// Items lists scope's active and paused items of owner ("": everyone's),
// by Next then ID.
func (db *DB) Items(ctx context.Context, scope, owner string) ([]remind.Item, error) {
	return db.listItems(ctx, `scope = $1 AND ($2 = '' OR owner = $2)`, scope, owner)
}

// ItemsOf lists owner's active and paused items in every scope, by Next
// then ID: all a person has asked for, wherever they asked (the console's
// page of a person).
func (db *DB) ItemsOf(ctx context.Context, owner string) ([]remind.Item, error) {
	return db.listItems(ctx, `owner = $1`, owner)
}

// listItems lists the active and paused items where says, by Next then
// ID.
func (db *DB) listItems(ctx context.Context, where string, args ...any) ([]remind.Item, error) {
	out, err := db.queryItems(ctx, `
		SELECT `+rowdata.ItemColumns+` FROM reminders
		WHERE `+where+` AND status IN ('active', 'paused')
		ORDER BY next, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: items: %w", err)
	}
	return out, nil
}

// AllItems lists up to limit active and paused items matching f, across
// scopes, by scope, next, then id (remind.ItemLister). Scopes sort by
// their bytes (COLLATE "C"), as on SQLite, whatever the database's
// collation.
func (db *DB) AllItems(ctx context.Context, f remind.ItemFilter, limit int) ([]remind.Item, error) {
	out, err := db.queryItems(ctx, `
		SELECT `+rowdata.ItemColumns+` FROM reminders
		WHERE status IN ('active', 'paused') AND ($1 = '' OR scope = $1) AND ($2 = '' OR owner = $2)
			AND ($3 = '' OR kind = $3)
		ORDER BY scope COLLATE "C", next, id LIMIT $4 OFFSET $5`, f.Scope, f.Owner, string(f.Kind), limit, max(f.Offset, 0))
	if err != nil {
		return nil, fmt.Errorf("postgres: all items: %w", err)
	}
	return out, nil
}

// queryItems reads the items query selects (rowdata.ItemColumns).
func (db *DB) queryItems(ctx context.Context, query string, args ...any) ([]remind.Item, error) {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (remind.Item, error) { return scanItem(r) })
}

// liveItem reads item id in tx and locks its row until the transaction
// ends (SQLite's write lock did that for the whole file), so the caller's
// read-modify-write cannot interleave with another's: store.ErrNotFound
// when there is none, remind.ErrFinished when it is done or cancelled.
func liveItem(ctx context.Context, tx pgx.Tx, id int64) (remind.Item, error) {
	it, err := scanItem(tx.QueryRow(ctx, `SELECT `+rowdata.ItemColumns+` FROM reminders WHERE id = $1 FOR UPDATE`, id))
	if noRows(err) {
		return it, fmt.Errorf("item %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return it, err
	}
	if rowdata.Finished(it) {
		return it, fmt.Errorf("item %d: %w", id, remind.ErrFinished)
	}
	return it, nil
}

// CancelItem cancels an active or paused item, dropping its claims not yet
// delivered.
func (db *DB) CancelItem(ctx context.Context, id int64) error {
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if _, err := liveItem(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE reminders SET status = 'cancelled' WHERE id = $1`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM reminder_claims WHERE item_id = $1 AND delivered_at IS NULL`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: cancel item: %w", err)
	}
	return nil
}

// PauseItem pauses an active item or resumes a paused one, and returns it
// as it now is (rowdata.Pause): resuming a recurrence moves Next to its
// first occurrence after now and clears Failures; a recurrence with no
// occurrence left is done.
func (db *DB) PauseItem(ctx context.Context, id int64, paused bool, now time.Time) (remind.Item, error) {
	var it remind.Item
	err := db.tx(ctx, func(tx pgx.Tx) error {
		var err error
		if it, err = liveItem(ctx, tx, id); err != nil {
			return err
		}
		if !rowdata.Pause(&it, paused, now) {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE reminders SET status = $1, next = $2, failures = $3 WHERE id = $4`,
			it.Status, ts(it.Next), it.Failures, id)
		return err
	})
	if err != nil {
		return remind.Item{}, fmt.Errorf("postgres: pause item: %w", err)
	}
	return it, nil
}

// RecordItemRun records a scheduled run's outcome at now. The failure that
// makes remind.MaxFailures in a row pauses an active item, and only that
// one returns paused = true.
//
// The counting UPDATE … RETURNING locks the row, so two outcomes recorded
// at once count one after the other, and only the one that reaches the
// limit pauses.
func (db *DB) RecordItemRun(ctx context.Context, id int64, ok bool, result string, now time.Time) (paused bool, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		var failures int
		var status remind.Status
		err := tx.QueryRow(ctx, `
			UPDATE reminders SET last_run = $1, last_result = $2,
				failures = CASE WHEN $3 THEN 0 ELSE failures + 1 END
			WHERE id = $4 RETURNING failures, status`,
			ts(now), result, ok, id).Scan(&failures, &status)
		if noRows(err) {
			return fmt.Errorf("item %d: %w", id, store.ErrNotFound)
		}
		if err != nil || failures < remind.MaxFailures || status != remind.StatusActive {
			return err
		}
		paused = true
		_, err = tx.Exec(ctx, `UPDATE reminders SET status = 'paused' WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("postgres: record item run: %w", err)
	}
	return paused, nil
}
