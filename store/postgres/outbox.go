package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Reply returns the outbox record of the reply to the inbound event
// inboxKey; ok is false when there is none.
func (db *DB) Reply(ctx context.Context, inboxKey string) (rec outbound.OutboxRecord, ok bool, err error) {
	var refs string
	rec.InboxKey = inboxKey
	err = db.pool.QueryRow(ctx, `
		SELECT session_id, platform, space, chat, thread, refs, text, status, attempts
		FROM outbox WHERE inbox_key = $1`, inboxKey,
	).Scan(&rec.SessionID, &rec.Thread.Platform, &rec.Thread.Space, &rec.Thread.Chat, &rec.Thread.ID,
		&refs, &rec.Text, &rec.Status, &rec.Attempts)
	if noRows(err) {
		return outbound.OutboxRecord{}, false, nil
	}
	if err != nil {
		return outbound.OutboxRecord{}, false, fmt.Errorf("postgres: reply %q: %w", inboxKey, err)
	}
	if rec.Refs, err = rowdata.DecodeList(refs); err != nil {
		return outbound.OutboxRecord{}, false, fmt.Errorf("postgres: reply %q: refs: %w", inboxKey, err)
	}
	return rec, true, nil
}

// SaveReply creates or replaces the record of rec.InboxKey: one record per
// inbound event. The session must exist (store.ErrNotFound otherwise); an
// empty Status is stored as "pending".
//
// One upsert: the last writer's record stands, as under SQLite's lock.
// An unknown session shows as the foreign key's violation, not as a
// separate read that another process could invalidate.
func (db *DB) SaveReply(ctx context.Context, rec outbound.OutboxRecord) error {
	if err := rowdata.CheckReply(rec); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := validThread(rec.Thread); err != nil {
		return fmt.Errorf("postgres: save reply %q: %w", rec.InboxKey, err)
	}
	refsJSON, status, err := rowdata.EncodeReply(rec)
	if err != nil {
		return fmt.Errorf("postgres: save reply %q: %w", rec.InboxKey, err)
	}
	_, err = db.pool.Exec(ctx, `
		INSERT INTO outbox (inbox_key, session_id, platform, space, chat, thread,
		                    refs, text, status, attempts, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
		ON CONFLICT (inbox_key) WHERE inbox_key IS NOT NULL DO UPDATE SET
			session_id = excluded.session_id,
			platform = excluded.platform, space = excluded.space,
			chat = excluded.chat, thread = excluded.thread,
			refs = excluded.refs, text = excluded.text, status = excluded.status,
			attempts = excluded.attempts, updated_at = excluded.updated_at`,
		rec.InboxKey, rec.SessionID, rec.Thread.Platform, rec.Thread.Space, rec.Thread.Chat, rec.Thread.ID,
		refsJSON, rec.Text, status, rec.Attempts, ts(db.now()))
	if isForeignKeyViolation(err) {
		err = fmt.Errorf("session %q: %w", rec.SessionID, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("postgres: save reply %q: %w", rec.InboxKey, err)
	}
	return nil
}

// isForeignKeyViolation reports whether err is PostgreSQL's
// foreign_key_violation: a row referring to one that does not exist.
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}
