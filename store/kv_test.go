package store_test

import (
	"testing"

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
