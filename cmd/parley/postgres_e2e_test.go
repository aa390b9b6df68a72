package main

// End to end on PostgreSQL: the real binary with store.driver postgres,
// Telegram's fake and the fake model. The SQLite half of the same paths is
// every other end-to-end test.

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

// TestTelegramOnPostgres: a turn is answered with its state in PostgreSQL
// (no SQLite file appears in data_dir), and a message sent while Parley is
// down is answered once after the restart, from the inbox and the polling
// offset kept there.
func TestTelegramOnPostgres(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	w := startTelegram(t, map[string]string{
		"PARLEY_STORE_DRIVER":       "postgres",
		"PARLEY_STORE_POSTGRES_URL": url,
	}, nil)
	ctx := waitCtx(t)

	w.model.Enqueue(llmtest.Text("Stored in PostgreSQL."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "where do you keep this?"})
	w.botSays(t, ctx, tgAna, 0, "Stored in PostgreSQL.")
	if err := w.tg.WaitFor(ctx, w.tg.Polling); err != nil {
		t.Fatal(err)
	}
	w.stop()

	if _, err := os.Stat(filepath.Join(w.cfg.DataDir, "parley.db")); err == nil {
		t.Fatalf("a SQLite file appeared in %s with store.driver postgres", w.cfg.DataDir)
	}

	w.model.Enqueue(llmtest.Text("Back, and still here."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "sent while you were down"})
	w.start(t)
	w.botSays(t, ctx, tgAna, 0, "Back, and still here.")
	if n, m := len(w.model.Requests()), len(w.tg.BotMessages(tgAna)); n != 2 || m != 2 {
		t.Fatalf("%d model calls and %d messages, want 2 and 2", n, m)
	}
	// The second request carries the first turn: the transcript came back
	// from PostgreSQL.
	if got := w.model.Requests()[1]; !bytes.Contains(got.Body, []byte("Stored in PostgreSQL.")) {
		t.Fatalf("the turn after the restart did not see the earlier answer")
	}
}
