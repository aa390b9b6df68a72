package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parleybot/parley/chat"
)

var inboxTests = []test{
	{"AcceptOnceEver", testAcceptOnceEver},
	{"AcceptConcurrent", testAcceptConcurrent},
	{"MarkDone", testMarkDone},
	{"Unfinished", testUnfinished},
	{"BoundSession", testBoundSession},
}

func testAcceptOnceEver(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	steps := []struct {
		key, platform string
		want          bool
	}{
		{"T01:C01:1700000000.000100", "slack", true},
		// Slack sends message and app_mention for one mention: same key.
		{"T01:C01:1700000000.000100", "slack", false},
		{"T01:C01:1700000000.000200", "slack", true},
		{"telegram:812345678", "telegram", true},
		{"telegram:812345678", "telegram", false},
	}
	for _, st := range steps {
		got, err := db.Accept(ctx, st.key, st.platform, []byte(`{"raw":true}`))
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want {
			t.Errorf("Accept(%q) = %v, want %v", st.key, got, st.want)
		}
	}
	if err := db.MarkDone(ctx, "T01:C01:1700000000.000100"); err != nil {
		t.Fatal(err)
	}
	closeNow(t, db)

	// After a restart the platform redelivers; nothing is accepted twice,
	// done or not.
	db = reopen()
	for _, key := range []string{"T01:C01:1700000000.000100", "telegram:812345678"} {
		if got, err := db.Accept(ctx, key, "slack", nil); err != nil || got {
			t.Errorf("after restart Accept(%q) = %v, %v; want false", key, got, err)
		}
	}
	if got, err := db.Accept(ctx, "discord:1200000000000000002", "discord", nil); err != nil || !got {
		t.Errorf("Accept of a new key with no payload = %v, %v; want true", got, err)
	}
}

// testAcceptConcurrent: callers on two handles (two processes) race to
// accept one key; exactly one wins.
func testAcceptConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	for round := range 3 {
		key := fmt.Sprintf("T01:C01:1700000000.00030%d", round)
		var accepted atomic.Int32
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				<-start
				ok, err := dbs[i%2].Accept(t.Context(), key, "slack", nil)
				if err != nil {
					t.Error(err)
				}
				if ok {
					accepted.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if n := accepted.Load(); n != 1 {
			t.Errorf("key %s accepted %d times, want once", key, n)
		}
	}
}

func testMarkDone(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if _, err := db.Accept(ctx, "k", "console", nil); err != nil {
		t.Fatal(err)
	}
	for range 2 { // marking twice is fine
		if err := db.MarkDone(ctx, "k"); err != nil {
			t.Errorf("MarkDone: %v", err)
		}
	}
	if err := db.MarkDone(ctx, "never-seen"); !s.notFound(err) {
		t.Errorf("MarkDone of an unknown key: %v, want not found", err)
	}
}

func testUnfinished(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	for _, k := range []string{"a", "b", "c"} {
		if _, err := db.Accept(ctx, k, "slack", []byte(`{"k":"`+k+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.MarkDone(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	closeNow(t, db)
	db = reopen() // as after a crash
	items, err := db.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Key != "a" || items[1].Key != "c" || string(items[1].Payload) != `{"k":"c"}` || items[0].Platform != "slack" {
		t.Fatalf("unfinished: %+v", items)
	}
}

func testBoundSession(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	th := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.2"}
	if _, ok, err := db.BoundSession(ctx, th); err != nil || ok {
		t.Fatalf("unbound thread: ok=%v err=%v", ok, err)
	}
	id, err := db.SessionFor(ctx, th)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := db.BoundSession(ctx, th); err != nil || !ok || got != id {
		t.Fatalf("bound thread: %q %v %v, want %q", got, ok, err, id)
	}
}
