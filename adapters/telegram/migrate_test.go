package telegram_test

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// TestGroupBecomesSupergroup: a group upgraded while Parley talks in it.
// The answer still arrives (in the supergroup), its message can be edited
// through the old conversation, and after a restart calls go straight to
// the new chat.
func TestGroupBecomesSupergroup(t *testing.T) {
	const oldID, newID = -5, -1000000000005
	tg := telegramtest.NewServer(telegramtest.WithoutRateLimits())
	t.Cleanup(tg.Close)
	tg.AddUser(11, "Ana", "ana")
	tg.AddGroup(oldID, "team")
	asked := tg.Post(telegramtest.Incoming{Chat: oldID, From: 11, Text: "hi", Mention: true})
	tg.MigrateGroup(oldID, newID)

	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	newAdapter := func() *telegram.Adapter {
		a, err := telegram.New(telegram.Config{Token: tg.Token(), APIURL: tg.URL, State: db, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ctx := context.Background()
	conv := chat.Thread{Platform: "telegram", Chat: "-5", ID: "1"}

	ref, err := newAdapter().Send(ctx, conv, chat.Out{Text: "Hello **there**", ReplyTo: "1"})
	if err != nil {
		t.Fatalf("Send into the upgraded group: %v", err)
	}
	if err := newAdapter().Edit(ctx, ref, chat.Out{Text: "Hello again"}); err != nil {
		t.Fatalf("Edit through the old conversation: %v", err)
	}
	msgs := tg.BotMessages(newID)
	if len(msgs) != 1 || msgs[0].Visible != "Hello again" || msgs[0].ReplyTo == asked.MessageID {
		t.Fatalf("the supergroup shows %+v, want the edited answer (not replying to a message of the old group)", msgs)
	}
	// One refusal in all: the restarted adapter (Edit above) knew already.
	refused := 0
	for _, c := range tg.Calls() {
		if c.Status == http.StatusBadRequest {
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("%d calls refused for the old id, want 1 (then remembered)", refused)
	}
}
