package store

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

func TestInboxRow(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	payload := []byte("\x00binary\xffpayload")
	if _, err := db.Accept(ctx, "k", "telegram", payload); err != nil {
		t.Fatal(err)
	}
	row := func() (status string, got []byte, received int64, done sql.NullInt64) {
		t.Helper()
		err := db.r.QueryRowContext(ctx, `SELECT status, payload, received_at, done_at FROM inbox WHERE key = 'k'`).
			Scan(&status, &got, &received, &done)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	status, got, received, done := row()
	if status != "accepted" || !bytes.Equal(got, payload) || received != t0.UnixMilli() || done.Valid {
		t.Errorf("accepted row = %q, %q, %d, %v", status, got, received, done)
	}

	now = t0.Add(time.Second)
	if err := db.MarkDone(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(time.Hour)
	if err := db.MarkDone(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	status, got, _, done = row()
	if status != "done" || done.Int64 != t0.Add(time.Second).UnixMilli() {
		t.Errorf("done row = %q, done_at %v; want done at the first MarkDone", status, done)
	}
	// The key stays for dedupe; what people wrote does not outlive its
	// handling.
	if got != nil {
		t.Errorf("a handled event keeps its payload %q", got)
	}
	if ok, err := db.Accept(ctx, "k", "telegram", payload); err != nil || ok {
		t.Errorf("the key was forgotten: Accept = %v, %v", ok, err)
	}
}
