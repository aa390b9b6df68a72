package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ outbound.Outbox = (*DB)(nil)

// Reply returns the outbox record of the reply to the inbound event
// inboxKey; ok is false when there is none.
func (db *DB) Reply(ctx context.Context, inboxKey string) (rec outbound.OutboxRecord, ok bool, err error) {
	var refs string
	rec.InboxKey = inboxKey
	err = db.r.QueryRowContext(ctx, `
		SELECT session_id, platform, space, chat, thread, refs, text, status, attempts
		FROM outbox WHERE inbox_key = ?`, inboxKey,
	).Scan(&rec.SessionID, &rec.Thread.Platform, &rec.Thread.Space, &rec.Thread.Chat, &rec.Thread.ID,
		&refs, &rec.Text, &rec.Status, &rec.Attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return outbound.OutboxRecord{}, false, nil
	}
	if err != nil {
		return outbound.OutboxRecord{}, false, fmt.Errorf("store: reply %q: %w", inboxKey, err)
	}
	if rec.Refs, err = rowdata.DecodeList(refs); err != nil {
		return outbound.OutboxRecord{}, false, fmt.Errorf("store: reply %q: refs: %w", inboxKey, err)
	}
	return rec, true, nil
}

// SaveReply creates or replaces the record of rec.InboxKey: one record per
// inbound event, so a retried or resumed turn finds the messages its reply
// already produced. The session must exist (ErrNotFound otherwise); an
// empty Status is stored as "pending".
func (db *DB) SaveReply(ctx context.Context, rec outbound.OutboxRecord) error {
	if err := rowdata.CheckReply(rec); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := validThread(rec.Thread); err != nil {
		return fmt.Errorf("store: save reply %q: %w", rec.InboxKey, err)
	}
	refsJSON, status, err := rowdata.EncodeReply(rec)
	if err != nil {
		return fmt.Errorf("store: save reply %q: %w", rec.InboxKey, err)
	}
	now := millis(db.now())
	err = db.write(ctx, func(tx *sql.Tx) error {
		// Checked first so that an unknown session is ErrNotFound rather
		// than a bare constraint failure.
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, rec.SessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %q: %w", rec.SessionID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		// The conflict target repeats the partial index's WHERE, which
		// SQLite needs to match an upsert to a partial unique index.
		_, err = tx.ExecContext(ctx, `
			INSERT INTO outbox (inbox_key, session_id, platform, space, chat, thread,
			                    refs, text, status, attempts, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (inbox_key) WHERE inbox_key IS NOT NULL DO UPDATE SET
				session_id = excluded.session_id,
				platform = excluded.platform, space = excluded.space,
				chat = excluded.chat, thread = excluded.thread,
				refs = excluded.refs, text = excluded.text, status = excluded.status,
				attempts = excluded.attempts, updated_at = excluded.updated_at`,
			rec.InboxKey, rec.SessionID, rec.Thread.Platform, rec.Thread.Space, rec.Thread.Chat, rec.Thread.ID,
			refsJSON, rec.Text, status, rec.Attempts, now, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: save reply %q: %w", rec.InboxKey, err)
	}
	return nil
}
