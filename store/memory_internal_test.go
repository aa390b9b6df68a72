package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent"
)

// storedEntry is a memory_entries row as the tests look at it.
type storedEntry struct {
	ID      int64
	Content string
	Created time.Time
	Updated time.Time
}

func storedEntries(t *testing.T, db *DB, user string, target agent.MemoryTarget) []storedEntry {
	t.Helper()
	rows, err := db.r.QueryContext(t.Context(), `
		SELECT id, content, created_at, updated_at FROM memory_entries
		WHERE user_key = ? AND target = ? ORDER BY id`, user, string(target))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var es []storedEntry
	for rows.Next() {
		var e storedEntry
		var c, u int64
		if err := rows.Scan(&e.ID, &e.Content, &c, &u); err != nil {
			t.Fatal(err)
		}
		e.Created, e.Updated = fromMillis(c), fromMillis(u)
		es = append(es, e)
	}
	return es
}

// TestEditMemoryKeepsIdentity: entries an edit leaves alone keep their row
// and creation time; a replaced one keeps its row and gets a new updated_at.
func TestEditMemoryKeepsIdentity(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	edit := func(at time.Duration, f func([]string) []string) {
		t.Helper()
		now = t0.Add(at)
		err := db.EditMemory(t.Context(), "slack:U1", agent.Facts, func(es []string) ([]string, error) { return f(es), nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	edit(1*time.Hour, func(es []string) []string { return append(es, "a") })
	edit(2*time.Hour, func(es []string) []string { return append(es, "b") })
	edit(3*time.Hour, func(es []string) []string { return append(es, "c") })
	edit(4*time.Hour, func(es []string) []string { es[1] = "B"; return es })
	edit(5*time.Hour, func(es []string) []string { return append(es[:0:0], es[1:]...) })

	h := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	want := []storedEntry{
		{2, "B", h(2), h(4)},
		{3, "c", h(3), h(3)},
	}
	if diff := cmp.Diff(want, storedEntries(t, db, "slack:U1", agent.Facts)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestUsers(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type user struct {
		Platform, Name   string
		Created, Updated time.Time
	}
	get := func(key string) user {
		t.Helper()
		var u user
		var c, up int64
		err := db.r.QueryRowContext(t.Context(),
			`SELECT platform, name, created_at, updated_at FROM users WHERE key = ?`, key,
		).Scan(&u.Platform, &u.Name, &c, &up)
		if err != nil {
			t.Fatalf("user %s: %v", key, err)
		}
		u.Created, u.Updated = fromMillis(c), fromMillis(up)
		return u
	}
	ctx := t.Context()

	// Memory for someone never seen creates their row.
	if err := db.EditMemory(ctx, "telegram:42", agent.Profile, func(es []string) ([]string, error) {
		return append(es, "likes Go"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := get("telegram:42"), (user{"telegram", "", t0, t0}); got != want {
		t.Errorf("user made by EditMemory = %+v, want %+v", got, want)
	}

	now = t0.Add(time.Minute)
	if err := db.UpsertUser(ctx, "telegram:42", "telegram", "Ann"); err != nil {
		t.Fatal(err)
	}
	if got, want := get("telegram:42"), (user{"telegram", "Ann", t0, now}); got != want {
		t.Errorf("after UpsertUser = %+v, want %+v", got, want)
	}

	// Neither an unchanged upsert nor a later memory edit touches the row.
	later := t0.Add(time.Hour)
	now = later
	if err := db.UpsertUser(ctx, "telegram:42", "telegram", "Ann"); err != nil {
		t.Fatal(err)
	}
	if err := db.EditMemory(ctx, "telegram:42", agent.Facts, func(es []string) ([]string, error) {
		return append(es, "x"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := get("telegram:42"), (user{"telegram", "Ann", t0, t0.Add(time.Minute)}); got != want {
		t.Errorf("after no-op upsert and edit = %+v, want %+v", got, want)
	}
}
