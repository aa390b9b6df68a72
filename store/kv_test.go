package store_test

import (
	"testing"
	"time"

	"github.com/parleybot/parley/store"
)

func TestKV(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	ctx := t.Context()

	if v, ok, err := db.Get(ctx, "telegram.offset"); v != "" || ok || err != nil {
		t.Errorf("Get of a missing key = %q, %v, %v; want \"\", false, nil", v, ok, err)
	}
	steps := []struct{ key, value string }{
		{"telegram.offset", "812345678"},
		{"telegram.offset", "812345679"}, // overwrite
		{"slack.cursor", ""},             // empty is a value, not absence
		{"discord.session", "resume:abc"},
	}
	want := make(map[string]string)
	for _, s := range steps {
		if err := db.Set(ctx, s.key, s.value); err != nil {
			t.Fatal(err)
		}
		want[s.key] = s.value
	}
	// Read back through this DB and through a second one opened afterwards,
	// as after a restart.
	for _, db := range []*store.DB{db, openDB(t, path)} {
		for key, value := range want {
			v, ok, err := db.Get(ctx, key)
			if v != value || !ok || err != nil {
				t.Errorf("Get(%q) = %q, %v, %v; want %q, true, nil", key, v, ok, err, value)
			}
		}
	}
}

func TestKVDeleteStale(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := openDB(t, dbPath(t), store.WithClock(func() time.Time { return clock }))
	ctx := t.Context()
	set := func(key string) {
		if err := db.Set(ctx, key, "v"); err != nil {
			t.Fatal(err)
		}
	}
	set("telegram:chain:-1:1")
	set("telegram:chainless") // same prefix bytes up to "chain"; not ":"
	set("refused:telegram:7")
	clock = clock.Add(48 * time.Hour)
	set("telegram:chain:-1:2")

	n, err := db.DeleteStale(ctx, "telegram:chain:", clock.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("DeleteStale = %d, %v; want 1 (only the old chain entry)", n, err)
	}
	for key, want := range map[string]bool{
		"telegram:chain:-1:1": false, "telegram:chain:-1:2": true,
		"telegram:chainless": true, "refused:telegram:7": true,
	} {
		if _, ok, err := db.Get(ctx, key); err != nil || ok != want {
			t.Errorf("after pruning, %q present = %v (%v), want %v", key, ok, err, want)
		}
	}
	// A prefix with LIKE wildcards is taken literally.
	if n, err := db.DeleteStale(ctx, "%", clock.Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("DeleteStale(%%) = %d, %v; want 0", n, err)
	}
}
