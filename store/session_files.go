package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The pictures of a session's transcript live in session_files, once per
// session and content hash (migration 00014 says why); a message's JSON
// keeps each image's hash, type, size and name, without its bytes.
//
// Inline base64 in the message JSON was the alternative: for a 1568-px
// screenshot (~0.5–2 MB) it adds a third to the row, makes compaction's
// ReplaceMessages rewrite every image of the session on each compaction,
// and has every Messages call parse megabytes of JSON strings.

// queryer is what both the pool and a transaction offer.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// saveImages stores the bytes of imgs for the session, each content once.
func saveImages(ctx context.Context, tx *sql.Tx, sessionID string, imgs []llm.Image, now int64) error {
	if len(imgs) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO session_files (session_id, sha256, mime, data, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (session_id, sha256) DO NOTHING`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, img := range imgs {
		if _, err := stmt.ExecContext(ctx, sessionID, img.SHA256, img.MIME, img.Data, now); err != nil {
			return fmt.Errorf("save image %s: %w", img.SHA256, err)
		}
	}
	return nil
}

// dropUnusedImages deletes the session's pictures no message refers to
// any more: what compaction folded away.
func dropUnusedImages(ctx context.Context, tx *sql.Tx, sessionID string) error {
	_, err := tx.ExecContext(ctx, `
		DELETE FROM session_files WHERE session_id = ?1 AND sha256 NOT IN (
			SELECT json_extract(img.value, '$.sha256')
			FROM messages m, json_each(m.body, '$.images') img
			WHERE m.session_id = ?1)`, sessionID)
	return err
}

// loadImages fills in the bytes of the images of msgs, from the
// session's files. An image whose bytes are missing keeps nil Data: the
// providers send its placeholder instead.
func loadImages(ctx context.Context, q queryer, sessionID string, msgs []llm.Message) error {
	if !rowdata.HasImages(msgs) {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT sha256, data FROM session_files WHERE session_id = ?`, sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	data := map[string][]byte{}
	for rows.Next() {
		var sum string
		var b []byte
		if err := rows.Scan(&sum, &b); err != nil {
			return err
		}
		data[sum] = b
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rowdata.FillImages(msgs, data)
	return nil
}
