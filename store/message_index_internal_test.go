//go:build sqlite_fts5

package store

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// insertMessage writes a message as an older build did: its row alone.
func insertMessage(t *testing.T, conn interface {
	Exec(string, ...any) (sql.Result, error)
}, session string, m llm.Message) {
	t.Helper()
	body, err := rowdata.EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`INSERT INTO messages (session_id, role, body, created_at) VALUES (?, ?, ?, 0)`, session, string(m.Role), string(body)); err != nil {
		t.Fatal(err)
	}
}

func searchTexts(t *testing.T, db *DB, query string) []string {
	t.Helper()
	hits, err := db.SearchMessages(t.Context(), MessageSearch{Query: query})
	if err != nil {
		t.Fatalf("SearchMessages(%q): %v", query, err)
	}
	var out []string
	for _, h := range hits {
		var b strings.Builder
		for _, p := range h.Snippet {
			b.WriteString(p.Text)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// TestMessageIndexUpgrade: a database made before migration 00020 opens
// with every message people wrote and Parley answered found, in more than
// one batch; tool results are not.
func TestMessageIndexUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	conn, err := sql.Open(driverName, dsn(path, false, defaultConfig().busyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(t.Context(), conn, migrationsBefore(t, "00020")); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`INSERT INTO sessions (id, platform, created_at, updated_at) VALUES ('s1', 'slack', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	for range indexBatch {
		insertMessage(t, conn, "s1", llm.Message{Role: llm.RoleTool, Text: "filler", ToolCallID: "c"})
	}
	insertMessage(t, conn, "s1", llm.Message{Role: llm.RoleUser, Text: "the old question about 设备"})
	insertMessage(t, conn, "s1", llm.Message{Role: llm.RoleAssistant, Text: "the old answer"})
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := searchTexts(t, db, "old"); !slices.Equal(got, []string{"the old answer", "the old question about 设备"}) {
		t.Errorf("old found %q", got)
	}
	if got := searchTexts(t, db, "设备"); len(got) != 1 {
		t.Errorf("设备 found %q", got)
	}
	if got := searchTexts(t, db, "filler"); len(got) != 0 {
		t.Errorf("tool results found: %d", len(got))
	}
	var queued int
	if err := db.r.QueryRow(`SELECT count(*) FROM message_index_todo`).Scan(&queued); err != nil || queued != 0 {
		t.Errorf("%d messages still queued, %v", queued, err)
	}
}

// TestMessageIndexAfterBuildWithoutFTS: what a build without FTS5 did —
// messages queued, messages deleted with the trigger gone — is caught up
// by the next build with it: the queued found, the deleted not.
func TestMessageIndexAfterBuildWithoutFTS(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	sid, err := db.SessionFor(t.Context(), chat.Thread{Platform: "telegram", Chat: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(t.Context(), sid, llm.Message{Role: llm.RoleUser, Text: "forgotten wombat"}); err != nil {
		t.Fatal(err)
	}
	// As the build without FTS5 does: no trigger, deletes, a queue.
	for _, q := range []string{`DROP TRIGGER msg_fts_forget`, `DELETE FROM messages`} {
		if _, err := db.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	insertMessage(t, db.w, sid, llm.Message{Role: llm.RoleUser, Text: "queued wombat"})
	if _, err := db.w.Exec(`INSERT INTO message_index_todo SELECT max(id) FROM messages`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := searchTexts(t, db, "wombat"); !slices.Equal(got, []string{"queued wombat"}) {
		t.Errorf("wombat found %q", got)
	}
	var rows int
	if err := db.r.QueryRow(`SELECT count(*) FROM msg_fts`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("the index holds %d rows (%v), want the one message", rows, err)
	}
}

// TestSearchPersonOfManySessions: a person in more sessions than a search
// names inside the index query is filtered by the join instead, with the
// same answer: their messages, no one else's.
func TestSearchPersonOfManySessions(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	for i := range maxIndexedSessions + 1 {
		sid, err := db.SessionFor(ctx, chat.Thread{Platform: "telegram", Chat: "-1", ID: strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Set(ctx, "starter:"+sid, "telegram:7"); err != nil {
			t.Fatal(err)
		}
		if err := db.AppendMessages(ctx, sid, llm.Message{Role: llm.RoleUser, Text: "mine " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := db.SessionFor(ctx, chat.Thread{Platform: "telegram", Chat: "8"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(ctx, other, llm.Message{Role: llm.RoleUser, Text: "mine too, says another"}); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchMessages(ctx, MessageSearch{Query: "mine", User: "telegram:7", Limit: 1000})
	if err != nil || len(hits) != maxIndexedSessions+1 {
		t.Fatalf("%d hits, %v; want %d", len(hits), err, maxIndexedSessions+1)
	}
	for _, h := range hits {
		if h.SessionID == other {
			t.Fatal("another person's conversation was searched")
		}
	}
}

// TestMessageIndexChatsUpgrade: rows indexed before migration 00029 (the
// session's token alone) are indexed anew with their chat's when the new
// build opens the database: a search of the chat finds them, once each.
func TestMessageIndexChatsUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	eng := chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG", ID: "1.1"}
	sid, err := db.SessionFor(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(ctx, sid, llm.Message{Role: llm.RoleUser, Text: "the old question"},
		llm.Message{Role: llm.RoleAssistant, Text: "the old answer"}); err != nil {
		t.Fatal(err)
	}
	// As the build before 00029 indexed them, and its version.
	for _, q := range []string{
		`DELETE FROM msg_fts`,
		`INSERT INTO msg_fts (rowid, body, uni, sess) SELECT id, 'the old', '', '` + scopeToken(sid) + `' FROM messages`,
		`DELETE FROM goose_db_version WHERE version_id >= 29`,
	} {
		if _, err := db.w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ceng := []Place{{Platform: "slack", Space: "T1", Chat: "CENG"}}
	if hits, err := db.SearchMessages(ctx, MessageSearch{Query: "old", Chats: ceng}); err != nil || len(hits) != 0 {
		t.Fatalf("before the upgrade the chat's search found %d, %v", len(hits), err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []MessageSearch{{Query: "old"}, {Query: "old", Chats: ceng}, {Query: "question", Chats: ceng}} {
		hits, err := db.SearchMessages(ctx, q)
		want := 2
		if q.Query == "question" {
			want = 1
		}
		if err != nil || len(hits) != want {
			t.Errorf("%+v found %d, %v; want %d", q, len(hits), err, want)
		}
	}
	other := []Place{{Platform: "slack", Space: "T2", Chat: "CENG"}}
	if hits, err := db.SearchMessages(ctx, MessageSearch{Query: "old", Chats: other}); err != nil || len(hits) != 0 {
		t.Errorf("the same chat id in another workspace found %d, %v", len(hits), err)
	}
}
