package store_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

func TestAcceptOnceEver(t *testing.T) {
	path := dbPath(t)
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
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
	for _, s := range steps {
		got, err := db.Accept(ctx, s.key, s.platform, []byte(`{"raw":true}`))
		if err != nil {
			t.Fatal(err)
		}
		if got != s.want {
			t.Errorf("Accept(%q) = %v, want %v", s.key, got, s.want)
		}
	}
	if err := db.MarkDone(ctx, "T01:C01:1700000000.000100"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// After a restart the platform redelivers; nothing is accepted twice,
	// done or not.
	db = openDB(t, path)
	for _, key := range []string{"T01:C01:1700000000.000100", "telegram:812345678"} {
		if got, err := db.Accept(ctx, key, "slack", nil); err != nil || got {
			t.Errorf("after restart Accept(%q) = %v, %v; want false", key, got, err)
		}
	}
	if got, err := db.Accept(ctx, "discord:1200000000000000002", "discord", nil); err != nil || !got {
		t.Errorf("Accept of a new key with no payload = %v, %v; want true", got, err)
	}
}

func TestAcceptConcurrent(t *testing.T) {
	path := dbPath(t)
	dbs := []*store.DB{openDB(t, path), openDB(t, path)}
	var accepted atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ok, err := dbs[i%2].Accept(t.Context(), "T01:C01:1700000000.000300", "slack", nil)
			if err != nil {
				t.Error(err)
			}
			if ok {
				accepted.Add(1)
			}
		})
	}
	wg.Wait()
	if n := accepted.Load(); n != 1 {
		t.Errorf("one key accepted %d times, want once", n)
	}
}

func TestMarkDone(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	if _, err := db.Accept(ctx, "k", "console", nil); err != nil {
		t.Fatal(err)
	}
	for range 2 { // marking twice is fine
		if err := db.MarkDone(ctx, "k"); err != nil {
			t.Errorf("MarkDone: %v", err)
		}
	}
	if err := db.MarkDone(ctx, "never-seen"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("MarkDone of an unknown key: %v, want ErrNotFound", err)
	}
}

func TestUnfinished(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	ctx := t.Context()
	for _, k := range []string{"a", "b", "c"} {
		if _, err := db.Accept(ctx, k, "slack", []byte(`{"k":"`+k+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.MarkDone(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openDB(t, path) // as after a crash
	items, err := db.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Key != "a" || items[1].Key != "c" || string(items[1].Payload) != `{"k":"c"}` || items[0].Platform != "slack" {
		t.Fatalf("unfinished: %+v", items)
	}
}

func TestBoundSession(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	th := bot.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.2"}
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
