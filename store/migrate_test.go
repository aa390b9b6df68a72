package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
)

// schemaVersion returns the newest applied goose version and the number of
// rows in goose's version table.
func schemaVersion(t *testing.T, db *DB) (version, rows int64) {
	t.Helper()
	err := db.r.QueryRowContext(t.Context(),
		`SELECT max(version_id), count(*) FROM goose_db_version WHERE is_applied`,
	).Scan(&version, &rows)
	if err != nil {
		t.Fatal(err)
	}
	return version, rows
}

func TestMigrateNewDatabase(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	if v, _ := schemaVersion(t, db); v != latestVersion(t) {
		t.Errorf("schema version = %d, want %d", v, latestVersion(t))
	}
	rows, err := db.r.QueryContext(t.Context(), `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	slices.Sort(tables)
	want := []string{"approvals", "audit_log", "chat_people", "console_logins", "console_sessions", "costs", "goose_db_version", "inbox", "kb_chunks", "kb_documents", "kb_state", "kb_vectors", "kv", "learning_revisions", "leases", "memory_entries", "message_index_todo", "messages", "outbox", "reflection_log", "reflections", "reminder_claims", "reminders", "replicas", "run_signals", "self_memo", "session_files", "sessions", "skill_impressions", "skills", "task_helpers", "task_log", "tasks", "team_notes", "threads", "turn_hours", "users"}
	if db.KeywordIndex() == nil { // the FTS5 table and its shadow tables
		want = append(want, "kb_fts", "kb_fts_config", "kb_fts_data", "kb_fts_docsize", "kb_fts_idx",
			"msg_fts", "msg_fts_config", "msg_fts_data", "msg_fts_docsize", "msg_fts_idx")
		slices.Sort(want)
	}
	if !slices.Equal(tables, want) {
		t.Errorf("tables = %v, want %v", tables, want)
	}
}

// TestMigrateReopen opens an existing database again: nothing is applied a
// second time and the data is intact.
func TestMigrateReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	thread := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	id, err := db.SessionFor(t.Context(), thread)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(t.Context(), id, llm.Message{Role: llm.RoleUser, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	_, rowsBefore := schemaVersion(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for range 2 {
		db, err = Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		v, rows := schemaVersion(t, db)
		if v != latestVersion(t) || rows != rowsBefore {
			t.Errorf("after reopen: version %d with %d version rows, want %d with %d", v, rows, latestVersion(t), rowsBefore)
		}
		msgs, err := db.Messages(t.Context(), id)
		if err != nil || len(msgs) != 1 || msgs[0].Text != "hello" {
			t.Errorf("after reopen: Messages = %v, %v; want the one message", msgs, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// latestVersion is the version of the newest embedded migration.
func latestVersion(t *testing.T) int64 {
	t.Helper()
	entries, err := fs.ReadDir(migrations(), ".")
	if err != nil || len(entries) == 0 {
		t.Fatalf("migrations: %v", err)
	}
	var v int64
	if _, err := fmt.Sscanf(entries[len(entries)-1].Name(), "%d_", &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// withMigration returns the embedded migrations plus one more.
func withMigration(t *testing.T, name, sql string) fs.FS {
	t.Helper()
	fsys := fstest.MapFS{name: {Data: []byte(sql)}}
	err := fs.WalkDir(migrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(migrations(), path)
		fsys[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestMigrateUpgrade opens a database made at the current version with a
// build that has one more migration: it is applied, and the data survives.
func TestMigrateUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set(t.Context(), "telegram.offset", "42"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	v2 := withMigration(t, "00999_session_title.sql", `
-- +goose Up
ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT '';
-- +goose Down
ALTER TABLE sessions DROP COLUMN title;
`)
	db, err = open(t.Context(), path, v2)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := schemaVersion(t, db); v != 999 {
		t.Errorf("schema version = %d, want 999", v)
	}
	if _, err := db.w.ExecContext(t.Context(), `UPDATE sessions SET title = 'x'`); err != nil {
		t.Errorf("the new migration was not applied: %v", err)
	}
	if got, ok, err := db.Get(t.Context(), "telegram.offset"); got != "42" || !ok || err != nil {
		t.Errorf("after upgrade Get = %q, %v, %v; want 42", got, ok, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// This build, knowing only version 1, must not touch it.
	_, err = Open(t.Context(), path)
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("Open of a version 2 database with a version 1 build: %v, want ErrTooNew", err)
	}
	t.Log(err)
}

// TestSchemaConstraints checks that the schema rejects what it promises
// to reject, so that a bug elsewhere cannot store nonsense.
func TestSchemaConstraints(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	setup := []string{
		`INSERT INTO sessions (id, platform, created_at, updated_at) VALUES ('s', 'slack', 0, 0)`,
		`INSERT INTO users (key, platform, created_at, updated_at) VALUES ('slack:U1', 'slack', 0, 0)`,
		`INSERT INTO messages (session_id, role, body, created_at) VALUES ('s', 'user', '{"role":"user"}', 0)`,
		`INSERT INTO threads (platform, space, chat, thread, session_id, created_at, updated_at) VALUES ('slack', 'T', 'C', '1', 's', 0, 0)`,
	}
	for _, q := range setup {
		if _, err := db.w.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, sql string }{
		{"memory target", `INSERT INTO memory_entries (user_key, target, content, created_at, updated_at) VALUES ('slack:U1', 'secrets', 'x', 0, 0)`},
		{"memory of unknown user", `INSERT INTO memory_entries (user_key, target, content, created_at, updated_at) VALUES ('slack:U2', 'facts', 'x', 0, 0)`},
		{"message body not JSON", `INSERT INTO messages (session_id, role, body, created_at) VALUES ('s', 'user', 'hello', 0)`},
		{"message time as text", `INSERT INTO messages (session_id, role, body, created_at) VALUES ('s', 'user', '{}', 'noon')`},
		{"thread of unknown session", `INSERT INTO threads (platform, space, chat, thread, session_id, created_at, updated_at) VALUES ('slack', '', 'C', '', 'nope', 0, 0)`},
		{"inbox status", `INSERT INTO inbox (key, platform, status, received_at) VALUES ('k', 'slack', 'maybe', 0)`},
		{"approval status", `INSERT INTO approvals (id, session_id, tool_call_id, tool_name, summary, requester, status, expires_at, created_at) VALUES ('a', 's', 'c', 'shell', 'rm', 'slack:U1', 'perhaps', 0, 0)`},
		{"approvers not JSON", `INSERT INTO approvals (id, session_id, tool_call_id, tool_name, summary, requester, approvers, expires_at, created_at) VALUES ('a', 's', 'c', 'shell', 'rm', 'slack:U1', 'U1,U2', 0, 0)`},
		{"outbox refs not JSON", `INSERT INTO outbox (session_id, platform, refs, created_at, updated_at) VALUES ('s', 'slack', '[', 0, 0)`},
	}
	for _, tt := range tests {
		if _, err := db.w.ExecContext(t.Context(), tt.sql); err == nil {
			t.Errorf("%s: accepted; want a constraint error", tt.name)
		}
	}

	// Two replies for one inbound event, or two approvals for one tool
	// call, are what the unique indexes exist to stop.
	dupes := []struct{ name, sql string }{
		{"outbox per inbox key", `INSERT INTO outbox (inbox_key, session_id, platform, created_at, updated_at) VALUES ('slack:T:C:1', 's', 'slack', 0, 0)`},
		{"approval per tool call", `INSERT INTO approvals (id, session_id, tool_call_id, tool_name, summary, requester, expires_at, created_at) VALUES (hex(randomblob(8)), 's', 'call_1', 'shell', 'rm', 'slack:U1', 0, 0)`},
	}
	for _, tt := range dupes {
		if _, err := db.w.ExecContext(t.Context(), tt.sql); err != nil {
			t.Fatalf("%s: first insert: %v", tt.name, err)
		}
		if _, err := db.w.ExecContext(t.Context(), tt.sql); err == nil {
			t.Errorf("%s: second insert accepted; want a unique constraint error", tt.name)
		}
	}

	// Deleting a session takes its transcript, thread binding, replies and
	// approvals with it.
	if _, err := db.w.ExecContext(t.Context(), `DELETE FROM sessions WHERE id = 's'`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"messages", "threads", "outbox", "approvals"} {
		var n int // each had a row for session s
		if err := db.r.QueryRowContext(t.Context(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows left after deleting their session", table, n)
		}
	}
}
