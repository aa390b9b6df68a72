package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

var outboxTests = []test{
	{"RoundTrip", testOutboxRoundTrip},
	{"Update", testOutboxUpdate},
	{"UnknownKey", testOutboxUnknownKey},
	{"NeedsSession", testOutboxNeedsSession},
	{"RejectsIncompleteRecords", testOutboxRejectsIncompleteRecords},
	{"SurvivesRestart", testOutboxSurvivesRestart},
	{"ConcurrentSaves", testOutboxConcurrentSaves},
}

// saveAndRead saves rec and checks that Reply reads it back unchanged.
func saveAndRead(t *testing.T, db Store, rec outbound.OutboxRecord) {
	t.Helper()
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
}

func testOutboxRoundTrip(t *testing.T, s suite) {
	db := s.fresh(t)
	th := chat.Thread{Platform: "slack", Space: "T01", Chat: "C01", ID: "1700000000.000100"}
	sid := newSession(t, db, th)
	tests := []struct {
		name string
		rec  outbound.OutboxRecord
	}{
		{"no messages yet", outbound.OutboxRecord{Status: outbound.ReplyStreaming}},
		{"one message", outbound.OutboxRecord{Refs: []string{"1700000001.000200"}, Text: "…", Status: outbound.ReplyStreaming}},
		{"continuations", outbound.OutboxRecord{Refs: []string{"1", "2", "3"}, Text: "part one\n\npart two\n\n```go\nx := 1\n```", Status: outbound.ReplyDelivered, Attempts: 2}},
		{"failed", outbound.OutboxRecord{Refs: []string{"9"}, Text: "", Status: outbound.ReplyFailed, Attempts: 7}},
		{"unicode and quotes", outbound.OutboxRecord{Refs: []string{`quo"te`, "ü"}, Text: "注意：请看 \"x\" 🙂", Status: outbound.ReplyDelivered, Attempts: 1}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.rec
			rec.InboxKey = fmt.Sprintf("T01:C01:17000000%02d.0", i)
			rec.SessionID, rec.Thread = sid, th
			saveAndRead(t, db, rec)
		})
	}
}

func testOutboxUpdate(t *testing.T, s suite) {
	db := s.fresh(t)
	th := chat.Thread{Platform: "telegram", Chat: "-100200", ID: "77"}
	sid := newSession(t, db, th)
	steps := []outbound.OutboxRecord{
		{Refs: []string{"501"}, Status: outbound.ReplyStreaming},
		{Refs: []string{"501", "502"}, Text: "part 1", Status: outbound.ReplyStreaming, Attempts: 1},
		{Refs: []string{"501", "502"}, Text: "part 1\n\npart 2", Status: outbound.ReplyDelivered, Attempts: 1},
		{Refs: []string{"501"}, Text: "fewer refs", Status: outbound.ReplyFailed, Attempts: 2},
	}
	for _, rec := range steps {
		rec.InboxKey, rec.SessionID, rec.Thread = "telegram:812345678", sid, th
		saveAndRead(t, db, rec)
	}
}

func testOutboxUnknownKey(t *testing.T, s suite) {
	db := s.fresh(t)
	rec, ok, err := db.Reply(t.Context(), "nobody:1")
	if err != nil || ok {
		t.Fatalf("Reply of an unknown key = %+v, %v, %v; want ok=false and no error", rec, ok, err)
	}
}

func testOutboxNeedsSession(t *testing.T, s suite) {
	db := s.fresh(t)
	th := chat.Thread{Platform: "discord", Chat: "1200000000000000001"}
	err := db.SaveReply(t.Context(), outbound.OutboxRecord{InboxKey: "discord:1", SessionID: "no-such-session", Thread: th, Status: outbound.ReplyStreaming})
	if !s.notFound(err) {
		t.Fatalf("SaveReply with an unknown session = %v, want not found", err)
	}
	if _, ok, err := db.Reply(t.Context(), "discord:1"); ok || err != nil {
		t.Fatalf("a refused record was stored: %v, %v", ok, err)
	}
}

func testOutboxRejectsIncompleteRecords(t *testing.T, s suite) {
	db := s.fresh(t)
	th := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1"}
	sid := newSession(t, db, th)
	tests := []struct {
		name string
		rec  outbound.OutboxRecord
	}{
		{"no inbox key", outbound.OutboxRecord{SessionID: sid, Thread: th}},
		{"no session", outbound.OutboxRecord{InboxKey: "k", Thread: th}},
		{"no platform", outbound.OutboxRecord{InboxKey: "k", SessionID: sid, Thread: chat.Thread{Chat: "C1"}}},
	}
	for _, tt := range tests {
		if err := db.SaveReply(t.Context(), tt.rec); err == nil {
			t.Errorf("%s: SaveReply accepted %+v", tt.name, tt.rec)
		}
	}
	if _, ok, err := db.Reply(t.Context(), "k"); ok || err != nil {
		t.Errorf("a refused record was stored: %v, %v", ok, err)
	}
}

func testOutboxSurvivesRestart(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	th := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}
	sid := newSession(t, db, th)
	rec := outbound.OutboxRecord{InboxKey: "T1:C1:1.1", SessionID: sid, Thread: th, Refs: []string{"2.2"}, Status: outbound.ReplyStreaming}
	if err := db.SaveReply(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	closeNow(t, db)
	db = reopen()
	got, ok, err := db.Reply(t.Context(), rec.InboxKey)
	if err != nil || !ok {
		t.Fatalf("Reply after restart = %v, %v", ok, err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("after restart (-saved +loaded):\n%s", diff)
	}
}

func testOutboxConcurrentSaves(t *testing.T, s suite) {
	db := s.fresh(t)
	th := chat.Thread{Platform: "telegram", Chat: "42"}
	sid := newSession(t, db, th)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 10 {
				rec := outbound.OutboxRecord{InboxKey: fmt.Sprintf("telegram:%d", i), SessionID: sid, Thread: th,
					Refs: []string{fmt.Sprint(j)}, Status: outbound.ReplyStreaming, Attempts: j}
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
