package store_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/store"
)

// newSession returns the id of a session bound to a fresh thread.
func newSession(t *testing.T, db *store.DB, th bot.Thread) string {
	t.Helper()
	sid, err := db.SessionFor(t.Context(), th)
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

func TestOutboxRoundTrip(t *testing.T) {
	db := newDB(t)
	th := bot.Thread{Platform: "slack", Space: "T01", Chat: "C01", ID: "1700000000.000100"}
	sid := newSession(t, db, th)
	tests := []struct {
		name string
		rec  bot.OutboxRecord
	}{
		{"no messages yet", bot.OutboxRecord{Status: bot.ReplyStreaming}},
		{"one message", bot.OutboxRecord{Refs: []string{"1700000001.000200"}, Text: "…", Status: bot.ReplyStreaming}},
		{"continuations", bot.OutboxRecord{Refs: []string{"1", "2", "3"}, Text: "part one\n\npart two\n\n```go\nx := 1\n```", Status: bot.ReplyDelivered, Attempts: 2}},
		{"failed", bot.OutboxRecord{Refs: []string{"9"}, Text: "", Status: bot.ReplyFailed, Attempts: 7}},
		{"unicode and quotes", bot.OutboxRecord{Refs: []string{`quo"te`, "ü"}, Text: "注意：请看 \"x\" 🙂", Status: bot.ReplyDelivered, Attempts: 1}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.rec
			rec.InboxKey = fmt.Sprintf("T01:C01:17000000%02d.0", i)
			rec.SessionID, rec.Thread = sid, th
			if err := db.SaveReply(t.Context(), rec); err != nil {
				t.Fatal(err)
			}
			got, ok, err := db.Reply(t.Context(), rec.InboxKey)
			if err != nil || !ok {
				t.Fatalf("Reply = %v, %v", ok, err)
			}
			if diff := cmp.Diff(rec, got); diff != "" {
				t.Errorf("round trip (-saved +loaded):\n%s", diff)
			}
		})
	}
}

func TestOutboxUpdate(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path, store.WithClock(tickingClock()))
	th := bot.Thread{Platform: "telegram", Chat: "-100200", ID: "77"}
	sid := newSession(t, db, th)
	key := "telegram:812345678"
	steps := []bot.OutboxRecord{
		{Refs: []string{"501"}, Status: bot.ReplyStreaming},
		{Refs: []string{"501", "502"}, Text: "part 1", Status: bot.ReplyStreaming, Attempts: 1},
		{Refs: []string{"501", "502"}, Text: "part 1\n\npart 2", Status: bot.ReplyDelivered, Attempts: 1},
	}
	for _, rec := range steps {
		rec.InboxKey, rec.SessionID, rec.Thread = key, sid, th
		if err := db.SaveReply(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		got, ok, err := db.Reply(t.Context(), key)
		if err != nil || !ok {
			t.Fatalf("Reply = %v, %v", ok, err)
		}
		if diff := cmp.Diff(rec, got); diff != "" {
			t.Errorf("after update (-saved +loaded):\n%s", diff)
		}
	}

	// Still one row, created once, updated since.
	raw := rawDB(t, "file:"+path+"?mode=ro")
	var n int
	var created, updated int64
	if err := raw.QueryRow(`SELECT count(*), min(created_at), max(updated_at) FROM outbox`).Scan(&n, &created, &updated); err != nil {
		t.Fatal(err)
	}
	if n != 1 || updated <= created {
		t.Errorf("%d rows, created %d, updated %d; want one row updated after it was created", n, created, updated)
	}
}

func TestOutboxUnknownKey(t *testing.T) {
	db := newDB(t)
	rec, ok, err := db.Reply(t.Context(), "nobody:1")
	if err != nil || ok {
		t.Fatalf("Reply of an unknown key = %+v, %v, %v; want ok=false and no error", rec, ok, err)
	}
}

func TestOutboxNeedsSession(t *testing.T) {
	db := newDB(t)
	th := bot.Thread{Platform: "discord", Chat: "1200000000000000001"}
	err := db.SaveReply(t.Context(), bot.OutboxRecord{InboxKey: "discord:1", SessionID: "no-such-session", Thread: th, Status: bot.ReplyStreaming})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("SaveReply with an unknown session = %v, want ErrNotFound", err)
	}
	if _, ok, err := db.Reply(t.Context(), "discord:1"); ok || err != nil {
		t.Fatalf("a refused record was stored: %v, %v", ok, err)
	}
}

func TestOutboxRejectsIncompleteRecords(t *testing.T) {
	db := newDB(t)
	th := bot.Thread{Platform: "slack", Space: "T1", Chat: "C1"}
	sid := newSession(t, db, th)
	for name, rec := range map[string]bot.OutboxRecord{
		"no inbox key": {SessionID: sid, Thread: th},
		"no session":   {InboxKey: "k", Thread: th},
		"no platform":  {InboxKey: "k", SessionID: sid, Thread: bot.Thread{Chat: "C1"}},
	} {
		if err := db.SaveReply(t.Context(), rec); err == nil {
			t.Errorf("%s: SaveReply accepted %+v", name, rec)
		}
	}
}

func TestOutboxSurvivesRestart(t *testing.T) {
	path := dbPath(t)
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	th := bot.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}
	sid := newSession(t, db, th)
	rec := bot.OutboxRecord{InboxKey: "T1:C1:1.1", SessionID: sid, Thread: th, Refs: []string{"2.2"}, Status: bot.ReplyStreaming}
	if err := db.SaveReply(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, path)
	got, ok, err := db.Reply(t.Context(), rec.InboxKey)
	if err != nil || !ok {
		t.Fatalf("Reply after restart = %v, %v", ok, err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("after restart (-saved +loaded):\n%s", diff)
	}
}

func TestOutboxConcurrentSaves(t *testing.T) {
	db := newDB(t)
	th := bot.Thread{Platform: "telegram", Chat: "42"}
	sid := newSession(t, db, th)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 10 {
				rec := bot.OutboxRecord{InboxKey: fmt.Sprintf("telegram:%d", i), SessionID: sid, Thread: th,
					Refs: []string{fmt.Sprint(j)}, Status: bot.ReplyStreaming, Attempts: j}
				if err := db.SaveReply(t.Context(), rec); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range 16 {
		got, ok, err := db.Reply(t.Context(), fmt.Sprintf("telegram:%d", i))
		if err != nil || !ok || got.Attempts != 9 || got.Refs[0] != "9" {
			t.Errorf("reply %d = %+v, %v, %v; want the last save", i, got, ok, err)
		}
	}
}

// TestDeliveryResumesFromSQLite is the crash-resume path end to end with a
// real database: a final answer whose third part cannot be posted fails
// past its deadline; a new Delivery on a reopened database (a restart)
// finishes it, posting and editing each part exactly once in total.
func TestDeliveryResumesFromSQLite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		path := dbPath(t)
		db, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		th := bot.Thread{Platform: "fake", Chat: "c1"}
		sid := newSession(t, db, th)
		caps := bottest.DefaultCapabilities()
		caps.MaxLen, caps.SplitAt = 120, 100
		fake := bottest.New(bottest.Config{Capabilities: caps})
		var paras []string
		for i := range 9 {
			paras = append(paras, fmt.Sprintf("paragraph %d %s", i, strings.Repeat("x", 20)))
		}
		final := strings.Join(paras, "\n\n") // ~300 characters: three parts of ≤ 100

		d1, err := bot.NewDelivery(bot.DeliveryConfig{Adapter: fake, Outbox: db, FinalDeadline: 30 * time.Second, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		w, err := d1.Begin(ctx, "fake:1", sid, th, bot.User{Platform: "fake", ID: "u"}, "")
		if err != nil {
			t.Fatal(err)
		}
		w.Delta(ctx, "paragraph 0")
		time.Sleep(2 * time.Second) // past the first frame's wait: the draft is posted
		synctest.Wait()
		// The streamed message exists; part 2 is posted, then the
		// platform refuses every send.
		fake.FailFrom(bottest.OpSend, 1, bottest.ErrServer)
		if err := w.Finish(ctx, final); err == nil {
			t.Fatal("Finish succeeded though part 3 could not be posted")
		}
		rec, ok, err := db.Reply(ctx, "fake:1")
		if err != nil || !ok || rec.Status != bot.ReplyFailed || len(rec.Refs) != 2 {
			t.Fatalf("after the failure the record is %+v (%v, %v); want failed with 2 refs", rec, ok, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}

		// Restart: a new database handle and a new Delivery.
		fake.ClearFaults()
		db = openDB(t, path)
		d2, err := bot.NewDelivery(bot.DeliveryConfig{Adapter: fake, Outbox: db, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		w, err = d2.Begin(ctx, "fake:1", sid, th, bot.User{Platform: "fake", ID: "u"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, final); err != nil {
			t.Fatal(err)
		}
		rec, _, _ = db.Reply(ctx, "fake:1")
		if rec.Status != bot.ReplyDelivered || len(rec.Refs) != 3 || rec.Attempts != 2 {
			t.Errorf("record after resume = %+v; want delivered, 3 refs, 2 attempts", rec)
		}
		msgs := fake.Messages(th)
		var texts []string
		for _, m := range msgs {
			if m.Text != "⚠️ I could not deliver the full answer." {
				texts = append(texts, m.Text)
			}
		}
		if got := strings.Join(texts, "\n\n"); got != final {
			t.Errorf("the messages show\n%q\nwant\n%q", got, final)
		}
		// Each part's final text reached the platform once: by an edit of
		// its streamed message, or posted with it (a continuation).
		shown := map[string]int{}
		for _, e := range fake.Edits() {
			shown[e.Out.Text]++
		}
		for _, c := range fake.Sent() {
			if c.Applied {
				shown[c.Out.Text]++
			}
		}
		for _, p := range texts {
			if shown[p] != 1 {
				t.Errorf("part %q was shown %d times, want once", p, shown[p])
			}
		}
		if d := fake.DuplicateFinals(); len(d) != 0 {
			t.Errorf("duplicates: %+v", d)
		}
	})
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
