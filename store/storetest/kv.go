package storetest

import (
	"maps"
	"testing"
	"time"
)

var kvTests = []test{
	{"GetSet", testKV},
	{"DeleteStale", testKVDeleteStale},
	{"KeysWithPrefix", testKVKeysWithPrefix},
}

func testKV(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
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
	for _, st := range steps {
		if err := db.Set(ctx, st.key, st.value); err != nil {
			t.Fatal(err)
		}
		want[st.key] = st.value
	}
	// Read back through this DB and through a second one opened afterwards,
	// as after a restart.
	for _, db := range []Store{db, reopen()} {
		for key, value := range want {
			v, ok, err := db.Get(ctx, key)
			if v != value || !ok || err != nil {
				t.Errorf("Get(%q) = %q, %v, %v; want %q, true, nil", key, v, ok, err, value)
			}
		}
	}
}

func testKVDeleteStale(t *testing.T, s suite) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := newClock(start)
	db, _ := s.open(t, Options{Now: clock.Now})
	ctx := t.Context()
	set := func(key string) {
		if err := db.Set(ctx, key, "v"); err != nil {
			t.Fatal(err)
		}
	}
	set("telegram:chain:-1:1")
	set("telegram:chainless") // same prefix bytes up to "chain"; not ":"
	set("refused:telegram:7")
	clock.Set(start.Add(48 * time.Hour))
	set("telegram:chain:-1:2")

	n, err := db.DeleteStale(ctx, "telegram:chain:", clock.Now().Add(-24*time.Hour))
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
	if n, err := db.DeleteStale(ctx, "%", clock.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("DeleteStale(%%) = %d, %v; want 0", n, err)
	}
}

func testKVKeysWithPrefix(t *testing.T, s suite) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := newClock(start)
	db, _ := s.open(t, Options{Now: clock.Now})
	ctx := t.Context()
	set := func(key, value string) {
		t.Helper()
		if err := db.Set(ctx, key, value); err != nil {
			t.Fatal(err)
		}
	}
	set("discord:seen:1", "g|10")
	set("discord:seenless", "x") // shares the bytes up to "seen", not the ":"
	set("telegram:offset", "5")
	set("a%b_c:1", "wild") // LIKE wildcards in a key
	clock.Set(start.Add(time.Hour))
	set("discord:seen:2", "|20")
	set("discord:seen:1", "g|11") // rewritten: now recent

	tests := []struct {
		name   string
		prefix string
		since  time.Time
		want   map[string]string
	}{
		{"all of a prefix", "discord:seen:", start, map[string]string{"discord:seen:1": "g|11", "discord:seen:2": "|20"}},
		{"since is inclusive", "discord:seen:", clock.Now(), map[string]string{"discord:seen:1": "g|11", "discord:seen:2": "|20"}},
		{"newer than every write", "discord:seen:", clock.Now().Add(time.Millisecond), map[string]string{}},
		{"older writes left out", "", clock.Now(), map[string]string{"discord:seen:1": "g|11", "discord:seen:2": "|20"}},
		{"empty prefix is every key", "", start, map[string]string{
			"discord:seen:1": "g|11", "discord:seen:2": "|20", "discord:seenless": "x",
			"telegram:offset": "5", "a%b_c:1": "wild",
		}},
		{"percent is literal", "%", start, map[string]string{}},
		{"underscore is literal", "discord_seen", start, map[string]string{}},
		{"wildcards match themselves", "a%b_c", start, map[string]string{"a%b_c:1": "wild"}},
		{"no such prefix", "slack:", start, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.KeysWithPrefix(ctx, tt.prefix, tt.since)
			if err != nil {
				t.Fatalf("KeysWithPrefix: %v", err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("KeysWithPrefix(%q, %v) = %v, want %v", tt.prefix, tt.since, got, tt.want)
			}
		})
	}
}
