package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
)

// TestCheckpointsBesideTheWriter: the writer never checkpoints in a
// commit, its commits are counted for the checkpointer, and a pass over
// a WAL past restartAfter frames lets the next write start it over.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	var auto int
	if err := db.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d, %v; want 0", auto, err)
	}

	before := db.ckpt.commits.Load()
	sid, err := db.SessionFor(ctx, chat.Thread{Platform: "telegram", Chat: "1"})
	if err != nil {
		t.Fatal(err)
	}
	// A reader on an old snapshot keeps the WAL from starting over, as a
	// stream of writes with no gap would.
	rtx, err := db.r.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rtx.QueryRowContext(ctx, "SELECT count(*) FROM messages").Scan(&n); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("%0900d", 0) // a page-sized message: frames pile up fast
	frames := 0
	for i := 0; frames <= restartAfter; i++ {
		if i > 20*restartAfter {
			t.Fatalf("the WAL holds %d frames after %d writes", frames, i)
		}
		if err := db.AppendMessages(ctx, sid, llm.Message{Role: llm.RoleUser, Text: text}); err != nil {
			t.Fatal(err)
		}
		if frames, err = checkpoint(ctx, db.ckpt.conn); err != nil {
			t.Fatal(err)
		}
	}
	if n := db.ckpt.commits.Load() - before; n < 2 {
		t.Fatalf("%d commits counted", n)
	}
	if err := rtx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := db.ckpt.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(ctx, sid, llm.Message{Role: llm.RoleUser, Text: "after"}); err != nil {
		t.Fatal(err)
	}
	if frames, err = checkpoint(ctx, db.ckpt.conn); err != nil || frames > 50 {
		t.Fatalf("the WAL holds %d frames after a finishing pass and one write (%v); want it started over", frames, err)
	}
}
