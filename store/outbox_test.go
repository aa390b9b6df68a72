package store_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// newSession returns the id of a session bound to a fresh thread.
func newSession(t *testing.T, db *store.DB, th chat.Thread) string {
	t.Helper()
	sid, err := db.SessionFor(t.Context(), th)
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

// TestOutboxUpdateKeepsOneRow: updates rewrite the reply's row, created
// once (what the updates read back is the suite's Outbox/Update).
func TestOutboxUpdateKeepsOneRow(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path, store.WithClock(tickingClock()))
	th := chat.Thread{Platform: "telegram", Chat: "-100200", ID: "77"}
	sid := newSession(t, db, th)
	for i, text := range []string{"", "part 1", "part 1\n\npart 2"} {
		rec := outbound.OutboxRecord{InboxKey: "telegram:812345678", SessionID: sid, Thread: th,
			Refs: []string{"501"}, Text: text, Status: outbound.ReplyStreaming, Attempts: i}
		if err := db.SaveReply(t.Context(), rec); err != nil {
			t.Fatal(err)
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
		th := chat.Thread{Platform: "fake", Chat: "c1"}
		sid := newSession(t, db, th)
		caps := bottest.DefaultCapabilities()
		caps.MaxLen, caps.SplitAt = 120, 100
		fake := bottest.New(bottest.Config{Capabilities: caps})
		var paras []string
		for i := range 9 {
			paras = append(paras, fmt.Sprintf("paragraph %d %s", i, strings.Repeat("x", 20)))
		}
		final := strings.Join(paras, "\n\n") // ~300 characters: three parts of ≤ 100

		d1, err := outbound.NewDelivery(outbound.DeliveryConfig{Adapter: fake, Outbox: db, FinalDeadline: 30 * time.Second, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		w, err := d1.Begin(ctx, "fake:1", sid, th, chat.User{Platform: "fake", ID: "u"}, "")
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
		if err != nil || !ok || rec.Status != outbound.ReplyFailed || len(rec.Refs) != 2 {
			t.Fatalf("after the failure the record is %+v (%v, %v); want failed with 2 refs", rec, ok, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}

		// Restart: a new database handle and a new Delivery.
		fake.ClearFaults()
		db = openDB(t, path)
		d2, err := outbound.NewDelivery(outbound.DeliveryConfig{Adapter: fake, Outbox: db, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		w, err = d2.Begin(ctx, "fake:1", sid, th, chat.User{Platform: "fake", ID: "u"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, final); err != nil {
			t.Fatal(err)
		}
		rec, _, _ = db.Reply(ctx, "fake:1")
		if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 3 || rec.Attempts != 2 {
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
