package postgres_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

// What the conformance suite cannot see: the rows behind the behaviour,
// read through a connection of their own.

var slackThread = chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}

// TestImagesStoredOnce: a picture's bytes are kept once per session
// whatever number of messages show it, the message rows hold no bytes,
// and a rewrite that drops the last message showing a picture deletes its
// bytes. (That the transcript reads back equal is the suite's.)
func TestImagesStoredOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	db, raw := openDB(t, url), rawConn(t, url)
	ctx := t.Context()
	files := func() (rows, size int) {
		t.Helper()
		if err := raw.QueryRow(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM session_files`).Scan(&rows, &size); err != nil {
			t.Fatal(err)
		}
		return rows, size
	}
	id, err := db.SessionFor(ctx, slackThread)
	if err != nil {
		t.Fatal(err)
	}
	shot := llm.ImageHash(llm.Image{MIME: "image/png", Data: bytes.Repeat([]byte("p"), 50_000), Width: 800, Height: 600, Name: "shot.png"})
	photo := llm.ImageHash(llm.Image{MIME: "image/jpeg", Data: bytes.Repeat([]byte("j"), 30_000), Name: "photo.jpg"})
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "both", Images: []llm.Image{shot, photo}},
		{Role: llm.RoleUser, Text: "again", Images: []llm.Image{shot}},
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "shot", Images: []llm.Image{photo}},
	}
	if err := db.AppendMessages(ctx, id, msgs...); err != nil {
		t.Fatal(err)
	}
	if rows, size := files(); rows != 2 || size != 80_000 {
		t.Fatalf("session_files: %d rows, %d bytes; want the two pictures once (80000 bytes)", rows, size)
	}
	var longest int
	if err := raw.QueryRow(ctx, `SELECT max(length(body)) FROM messages`).Scan(&longest); err != nil {
		t.Fatal(err)
	}
	if longest > 1000 {
		t.Errorf("a message row is %d bytes: the image bytes went into the transcript", longest)
	}
	// Compaction keeps only the tool's result: the photo stays, the shot
	// is folded away and its bytes go.
	kept := []llm.Message{{Role: llm.RoleUser, Text: "[Summary]"}, msgs[2]}
	if err := db.ReplaceMessages(ctx, id, kept); err != nil {
		t.Fatal(err)
	}
	if rows, size := files(); rows != 1 || size != 30_000 {
		t.Fatalf("after the rewrite: %d rows, %d bytes; want the photo alone", rows, size)
	}
}

// TestEditMemoryKeepsIdentity: entries an edit left alone keep their row
// and created_at; a replaced one is updated in place.
func TestEditMemoryKeepsIdentity(t *testing.T) {
	t.Parallel()
	now := epoch
	url := pgtest.NewDatabase(t)
	db := openDB(t, url, postgres.WithClock(func() time.Time { return now }))
	edit := func(at time.Duration, f func([]string) []string) {
		t.Helper()
		now = epoch.Add(at)
		if err := db.EditMemory(t.Context(), "slack:U1", agent.Facts, func(es []string) ([]string, error) { return f(es), nil }); err != nil {
			t.Fatal(err)
		}
	}
	edit(1*time.Hour, func(es []string) []string { return append(es, "a") })
	edit(2*time.Hour, func(es []string) []string { return append(es, "b") })
	edit(3*time.Hour, func(es []string) []string { return append(es, "c") })
	edit(4*time.Hour, func(es []string) []string { es[1] = "B"; return es })
	edit(5*time.Hour, func(es []string) []string { return append(es[:0:0], es[1:]...) })

	type entry struct {
		ID               int64
		Content          string
		Created, Updated time.Time
	}
	rows, err := rawConn(t, url).Query(t.Context(),
		`SELECT id, content, created_at, updated_at FROM memory_entries WHERE user_key = 'slack:U1' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.ID, &e.Content, &e.Created, &e.Updated); err != nil {
			t.Fatal(err)
		}
		e.Created, e.Updated = e.Created.UTC(), e.Updated.UTC()
		got = append(got, e)
	}
	h := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Hour) }
	want := []entry{{2, "B", h(2), h(4)}, {3, "c", h(3), h(3)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestTimesAsSQLiteKeepsThem: times come back in UTC at millisecond
// precision, whatever zone and precision the clock gave — what SQLite's
// unix milliseconds return.
func TestTimesAsSQLiteKeepsThem(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 10, 0, 0, 123_456_789, time.FixedZone("CET", 3600))
	db := newDB(t, postgres.WithClock(func() time.Time { return at }))
	id, err := db.SessionFor(t.Context(), slackThread)
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Session(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 1, 9, 0, 0, 123_000_000, time.UTC)
	if s.CreatedAt != want || s.UpdatedAt != want {
		t.Fatalf("created %v, updated %v; want %v", s.CreatedAt, s.UpdatedAt, want)
	}
}

// TestUnfinishedKeepsAcceptOrder: events received in the same millisecond
// are resumed in the order they were accepted (SQLite's rowid; here seq).
func TestUnfinishedKeepsAcceptOrder(t *testing.T) {
	t.Parallel()
	db := newDB(t, postgres.WithClock(func() time.Time { return epoch }))
	keys := []string{"k3", "k1", "k2", "k0"}
	for _, k := range keys {
		if ok, err := db.Accept(t.Context(), k, "slack", []byte(k)); err != nil || !ok {
			t.Fatalf("Accept(%s) = %t, %v", k, ok, err)
		}
	}
	items, err := db.Unfinished(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Key)
		if string(it.Payload) != it.Key {
			t.Errorf("%s: payload %q", it.Key, it.Payload)
		}
	}
	if diff := cmp.Diff(keys, got); diff != "" {
		t.Errorf("order (-accepted +unfinished):\n%s", diff)
	}
}

// TestPassageWithNUL: a passage holding NUL, which a PostgreSQL text
// column refuses, is stored with U+FFFD in its place and still found.
func TestPassageWithNUL(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	b := kb.New(kb.Config{Store: db})
	if _, err := b.Ingest(t.Context(), kb.Document{Scope: "operator", Source: "odd.txt", Kind: "text", AddedBy: "operator"},
		"before\x00after nul\n"); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	got, err := b.Search(t.Context(), []string{"operator"}, "after", 5)
	if err != nil || len(got) != 1 || got[0].Text != "before\uFFFDafter nul" {
		t.Fatalf("Search = %+v, %v; want the passage with U+FFFD for NUL", got, err)
	}
}
