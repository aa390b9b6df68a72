package store

import (
	"database/sql"
	"path/filepath"
	"testing"
)

func TestPragmas(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	tests := []struct {
		pool   string
		db     *sql.DB
		pragma string
		want   string
	}{
		{"writer", db.w, "journal_mode", "wal"},
		{"writer", db.w, "foreign_keys", "1"},
		{"writer", db.w, "busy_timeout", "5000"},
		{"writer", db.w, "synchronous", "1"}, // NORMAL: durable in WAL mode, and far cheaper than FULL
		{"writer", db.w, "query_only", "0"},
		{"reader", db.r, "journal_mode", "wal"},
		{"reader", db.r, "busy_timeout", "5000"},
	}
	for _, tt := range tests {
		var got string
		if err := tt.db.QueryRowContext(t.Context(), "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatalf("%s: PRAGMA %s: %v", tt.pool, tt.pragma, err)
		}
		if got != tt.want {
			t.Errorf("%s: PRAGMA %s = %s, want %s", tt.pool, tt.pragma, got, tt.want)
		}
	}
}

func TestReaderIsReadOnly(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.r.ExecContext(t.Context(), `INSERT INTO kv (key, value, updated_at) VALUES ('k', 'v', 0)`)
	if err == nil {
		t.Fatal("insert through the read pool succeeded; want a read-only error")
	}
}

func TestForeignKeysEnforced(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.w.ExecContext(t.Context(),
		`INSERT INTO messages (session_id, role, body, created_at) VALUES ('nope', 'user', '{}', 0)`)
	if err == nil {
		t.Fatal("message for a missing session was stored; foreign keys are off")
	}
}

func TestDSN(t *testing.T) {
	tests := []struct {
		path     string
		readOnly bool
		want     string
	}{
		{"/var/lib/parley/parley.db", false,
			"file:/var/lib/parley/parley.db?_busy_timeout=5000&_cache_size=-512&_foreign_keys=on&_journal_mode=WAL&_stmt_cache_size=32&_txlock=immediate"},
		{"/var/lib/parley/parley.db", true,
			"file:/var/lib/parley/parley.db?_busy_timeout=5000&_cache_size=-512&_stmt_cache_size=32&mode=ro"},
		{"/tmp/a?b#c%d/parley.db", true,
			"file:/tmp/a%3fb%23c%25d/parley.db?_busy_timeout=5000&_cache_size=-512&_stmt_cache_size=32&mode=ro"},
	}
	for _, tt := range tests {
		if got := dsn(tt.path, tt.readOnly, 5e9); got != tt.want {
			t.Errorf("dsn(%q, %v) =\n  %s\nwant\n  %s", tt.path, tt.readOnly, got, tt.want)
		}
	}
}
