package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store/internal/rowdata"
)

var _ agent.SessionStore = (*DB)(nil)

// Messages returns the transcript of session sessionID in order, its
// pictures' bytes included. A session without messages has an empty
// transcript; an unknown one is ErrNotFound.
func (db *DB) Messages(ctx context.Context, sessionID string) ([]llm.Message, error) {
	msgs, err := db.MessagesWithoutImageData(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if err := loadImages(ctx, db.r, sessionID, msgs); err != nil {
		return nil, fmt.Errorf("store: images of session %q: %w", sessionID, err)
	}
	return msgs, nil
}

var _ agent.ImagelessReader = (*DB)(nil)

// MessagesWithoutImageData is Messages with every picture's Data nil (its
// hash, type and size kept): for the questions about a session that need
// no pixels (/status, crash recovery).
func (db *DB) MessagesWithoutImageData(ctx context.Context, sessionID string) ([]llm.Message, error) {
	// The LEFT JOIN tells an empty session (one row, NULL body) from an
	// unknown one (no row) in a single query.
	rows, err := db.r.QueryContext(ctx, `
		SELECT m.body FROM sessions s LEFT JOIN messages m ON m.session_id = s.id
		WHERE s.id = ? ORDER BY m.id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: messages of session %q: %w", sessionID, err)
	}
	defer rows.Close()
	var (
		msgs  []llm.Message
		found bool
	)
	for rows.Next() {
		found = true
		var body sql.RawBytes // decoded before the next row, so no copy is needed
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("store: messages of session %q: %w", sessionID, err)
		}
		if body == nil {
			continue // the session has no messages
		}
		m, err := rowdata.DecodeMessage(body)
		if err != nil {
			return nil, fmt.Errorf("store: messages of session %q: %w", sessionID, err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: messages of session %q: %w", sessionID, err)
	}
	if !found {
		return nil, fmt.Errorf("store: session %q: %w", sessionID, ErrNotFound)
	}
	return msgs, nil
}

// AppendMessages adds msgs to the end of the transcript of session
// sessionID in one transaction and marks the session updated. An unknown
// session is ErrNotFound. Appending nothing is a no-op.
func (db *DB) AppendMessages(ctx context.Context, sessionID string, msgs ...llm.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if err := db.writeMessages(ctx, sessionID, false, msgs); err != nil {
		return fmt.Errorf("store: append to session %q: %w", sessionID, err)
	}
	return nil
}

// ReplaceMessages rewrites a session's whole transcript in one transaction
// (compaction): a crash leaves either the old transcript or the new one.
func (db *DB) ReplaceMessages(ctx context.Context, sessionID string, msgs []llm.Message) error {
	if err := db.writeMessages(ctx, sessionID, true, msgs); err != nil {
		return fmt.Errorf("store: rewrite session %q: %w", sessionID, err)
	}
	return nil
}

// writeMessages appends msgs to a session's transcript, first deleting
// the existing messages when replace is set.
func (db *DB) writeMessages(ctx context.Context, sessionID string, replace bool, msgs []llm.Message) error {
	// Encode before taking the write lock.
	bodies, imgs, _, err := rowdata.EncodeMessages(msgs)
	if err != nil {
		return err
	}
	now := millis(db.now())
	return db.write(ctx, func(tx *sql.Tx) error {
		var platform, space, chat string
		err := tx.QueryRowContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ? RETURNING platform, space, chat`,
			now, sessionID).Scan(&platform, &space, &chat)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if replace {
			if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, sessionID); err != nil {
				return err
			}
		}
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO messages (session_id, role, body, created_at) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		ids := make([]int64, len(msgs))
		for i, m := range msgs {
			res, err := stmt.ExecContext(ctx, sessionID, string(m.Role), bodies[i], now)
			if err != nil {
				return err
			}
			if ids[i], err = res.LastInsertId(); err != nil {
				return err
			}
		}
		// A replace's deleted messages left the index by its trigger.
		if err := indexMessages(ctx, tx, db.noFTS == nil, []string{indexPlace(sessionID, platform, space, chat)}, ids, msgs); err != nil {
			return err
		}
		if err := saveImages(ctx, tx, sessionID, imgs, now); err != nil {
			return err
		}
		if replace {
			return dropUnusedImages(ctx, tx, sessionID)
		}
		return nil
	})
}
