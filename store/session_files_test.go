package store_test

import (
	"bytes"
	"database/sql"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

// countFiles counts the rows of session_files, and their bytes, through
// a separate connection to the file.
func countFiles(t *testing.T, path string) (rows, bytes int) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, size sql.NullInt64
	if err := db.QueryRowContext(t.Context(), `SELECT count(*), sum(length(data)) FROM session_files`).Scan(&n, &size); err != nil {
		t.Fatal(err)
	}
	return int(n.Int64), int(size.Int64)
}

// TestImagesStoredOnce: a picture's bytes are kept once per session
// whatever number of messages show it, the message rows hold no bytes,
// and a rewrite that drops the last message showing a picture deletes its
// bytes. What the transcript reads back is the suite's
// (storetest: SessionFiles).
func TestImagesStoredOnce(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	ctx := t.Context()
	id, err := db.SessionFor(ctx, slackThread)
	if err != nil {
		t.Fatal(err)
	}
	shot := llm.ImageHash(llm.Image{MIME: "image/png", Data: bytes.Repeat([]byte("p"), 50_000)})
	photo := llm.ImageHash(llm.Image{MIME: "image/jpeg", Data: bytes.Repeat([]byte("j"), 30_000)})
	show := func(imgs ...llm.Image) llm.Message {
		return llm.Message{Role: llm.RoleUser, Text: "look", Images: imgs}
	}
	if err := db.AppendMessages(ctx, id, show(shot, photo), show(shot), show(photo)); err != nil {
		t.Fatal(err)
	}
	if rows, size := countFiles(t, path); rows != 2 || size != 80_000 {
		t.Fatalf("session_files: %d rows, %d bytes; want the two pictures once (80000 bytes)", rows, size)
	}
	var longest int
	raw := rawDB(t, "file:"+path+"?mode=ro")
	if err := raw.QueryRowContext(ctx, `SELECT max(length(body)) FROM messages`).Scan(&longest); err != nil {
		t.Fatal(err)
	}
	if longest > 1000 {
		t.Errorf("a message row is %d bytes: the image bytes went into the transcript", longest)
	}

	// Compaction keeps the last message: the photo stays, the shot is
	// folded away and its bytes go.
	if err := db.ReplaceMessages(ctx, id, []llm.Message{{Role: llm.RoleUser, Text: "[Summary]"}, show(photo)}); err != nil {
		t.Fatal(err)
	}
	if rows, size := countFiles(t, path); rows != 1 || size != 30_000 {
		t.Fatalf("after the rewrite: %d rows, %d bytes; want the photo alone", rows, size)
	}
}
