package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/llm"
)

// The pictures of a session's transcript live in session_files, once per
// session and content hash, as in store (its migration 00014 says why); a
// message's JSON keeps each image's hash, type, size and name.

// withoutImageData returns m with its images' bytes left out (the hashes
// set), and the images whose bytes are to be stored.
func withoutImageData(m llm.Message) (llm.Message, []llm.Image) {
	if len(m.Images) == 0 {
		return m, nil
	}
	var keep []llm.Image
	imgs := make([]llm.Image, len(m.Images))
	for i, img := range m.Images {
		img = llm.ImageHash(img)
		if len(img.Data) > 0 {
			keep = append(keep, img)
		}
		img.Data = nil
		imgs[i] = img
	}
	m.Images = imgs
	return m, keep
}

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
	want := false
	for _, m := range msgs {
		want = want || len(m.Images) > 0
	}
	if !want {
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
	for i := range msgs {
		for j := range msgs[i].Images {
			msgs[i].Images[j].Data = data[msgs[i].Images[j].SHA256]
		}
	}
	return nil
}
