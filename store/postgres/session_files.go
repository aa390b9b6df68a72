package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The pictures of a session's transcript live in session_files, once per
// session and content hash, as in store (its migration 00014 says why); a
// message's JSON keeps each image's hash, type, size and name.

// queueImages adds the inserts of imgs' bytes for the session to b, each
// content once. ON CONFLICT DO NOTHING keeps the first copy when two
// writers store the same picture.
func queueImages(b *pgx.Batch, sessionID string, imgs []llm.Image, now time.Time) {
	for _, img := range imgs {
		b.Queue(`
			INSERT INTO session_files (session_id, sha256, mime, data, created_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (session_id, sha256) DO NOTHING`,
			sessionID, img.SHA256, img.MIME, img.Data, now)
	}
}

// loadImages fills in the bytes of the images of msgs from the session's
// files. An image whose bytes are missing keeps nil Data: the providers
// send its placeholder instead.
func loadImages(ctx context.Context, q querier, sessionID string, msgs []llm.Message) error {
	if !rowdata.HasImages(msgs) {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT sha256, data FROM session_files WHERE session_id = $1`, sessionID)
	if err != nil {
		return err
	}
	data := map[string][]byte{}
	var sum string
	var b []byte
	if _, err := pgx.ForEachRow(rows, []any{&sum, &b}, func() error {
		data[sum] = b
		b = nil // the next row scans into a fresh slice
		return nil
	}); err != nil {
		return err
	}
	rowdata.FillImages(msgs, data)
	return nil
}
