package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Messages returns the transcript of session sessionID in order, its
// pictures' bytes included. A session without messages has an empty
// transcript; an unknown one is store.ErrNotFound.
func (db *DB) Messages(ctx context.Context, sessionID string) ([]llm.Message, error) {
	msgs, err := db.MessagesWithoutImageData(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if err := loadImages(ctx, db.pool, sessionID, msgs); err != nil {
		return nil, fmt.Errorf("postgres: images of session %q: %w", sessionID, err)
	}
	return msgs, nil
}

// MessagesWithoutImageData is Messages with every picture's Data nil (its
// hash, type and size kept).
func (db *DB) MessagesWithoutImageData(ctx context.Context, sessionID string) ([]llm.Message, error) {
	// The LEFT JOIN tells an empty session (one row, NULL body) from an
	// unknown one (no row) in a single query.
	rows, err := db.pool.Query(ctx, `
		SELECT m.body FROM sessions s LEFT JOIN messages m ON m.session_id = s.id
		WHERE s.id = $1 ORDER BY m.id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("postgres: messages of session %q: %w", sessionID, err)
	}
	var (
		msgs  []llm.Message
		found bool
		body  []byte
	)
	_, err = pgx.ForEachRow(rows, []any{&body}, func() error {
		found = true
		if body == nil {
			return nil // the session has no messages
		}
		m, err := rowdata.DecodeMessage(body)
		msgs = append(msgs, m)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: messages of session %q: %w", sessionID, err)
	}
	if !found {
		return nil, fmt.Errorf("postgres: session %q: %w", sessionID, store.ErrNotFound)
	}
	return msgs, nil
}

// AppendMessages adds msgs to the end of the transcript of session
// sessionID in one transaction and marks the session updated. An unknown
// session is store.ErrNotFound. Appending nothing is a no-op.
func (db *DB) AppendMessages(ctx context.Context, sessionID string, msgs ...llm.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if err := db.writeMessages(ctx, sessionID, false, msgs); err != nil {
		return fmt.Errorf("postgres: append to session %q: %w", sessionID, err)
	}
	return nil
}

// ReplaceMessages rewrites a session's whole transcript in one transaction
// (compaction): a crash leaves either the old transcript or the new one.
func (db *DB) ReplaceMessages(ctx context.Context, sessionID string, msgs []llm.Message) error {
	if err := db.writeMessages(ctx, sessionID, true, msgs); err != nil {
		return fmt.Errorf("postgres: rewrite session %q: %w", sessionID, err)
	}
	return nil
}

// writeMessages appends msgs to a session's transcript, first deleting
// the existing messages when replace is set.
//
// The first statement updates the session's row, which locks it until
// commit: writers of one session, in any process, take turns as they did
// behind SQLite's write lock, so message ids follow commit order and a
// replace never interleaves with an append.
func (db *DB) writeMessages(ctx context.Context, sessionID string, replace bool, msgs []llm.Message) error {
	// hashes: every picture the transcript shows, for a replace.
	bodies, imgs, hashes, err := rowdata.EncodeMessages(msgs)
	if err != nil {
		return err
	}
	now := ts(db.now())
	return db.tx(ctx, func(tx pgx.Tx) error {
		var chat store.Place
		err := tx.QueryRow(ctx, `UPDATE sessions SET updated_at = $1 WHERE id = $2 RETURNING platform, space, chat`,
			now, sessionID).Scan(&chat.Platform, &chat.Space, &chat.Chat)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		if replace {
			b.Queue(`DELETE FROM messages WHERE session_id = $1`, sessionID)
		}
		for i, m := range msgs {
			b.Queue(`INSERT INTO messages (session_id, role, body, created_at, tsv) VALUES ($1, $2, $3, $4, $5::tsvector)`,
				sessionID, string(m.Role), bodies[i], now, messageTSV(m, chat))
		}
		queueImages(b, sessionID, imgs, now)
		if replace {
			// The pictures no message refers to any more: what compaction
			// folded away. The new transcript is msgs, so its hashes are
			// known here, without reading the JSON back.
			b.Queue(`DELETE FROM session_files WHERE session_id = $1 AND NOT (sha256 = ANY($2))`,
				sessionID, rowdata.NonNil(hashes))
		}
		return tx.SendBatch(ctx, b).Close()
	})
}
