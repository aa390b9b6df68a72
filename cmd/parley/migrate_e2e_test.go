package main

import (
	"bytes"
	"log/slog"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
	"github.com/parleybot/parley/store/storetest"
)

// runMigrate runs `parley migrate` in-process with env and returns its
// exit status and output.
func runMigrate(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := execute(t.Context(), e, append([]string{"migrate"}, args...))
	t.Logf("parley migrate %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
	return code, out.String()
}

// withPassword is u with a password the server (trust auth) ignores, so
// the test can see it is never printed.
func withPassword(t *testing.T, u, password string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		t.Fatalf("pgtest URL %q has no user", u)
	}
	p.User = url.UserPassword(p.User.Username(), password)
	return p.String()
}

// checkLine is one table's line: table, rows, checksum, result.
var checkLine = regexp.MustCompile(`(?m)^(\w+)\s+(\d+)\s+([0-9a-f]{16})\s+(ok|MISMATCH.*)$`)

// TestMigrateToPostgres: a SQLite database with rows in every table is
// copied, each table verified, and the copy reads back through
// *postgres.DB as the original does through *store.DB; a second run
// refuses the now non-empty database; a running Parley's file, a missing
// file and a wrong --to are refused.
func TestMigrateToPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dataDir := t.TempDir()
	src, err := store.Open(ctx, filepath.Join(dataDir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	filled := storetest.Fill(t, src)

	const password = "hunter2-PASSWORD"
	pgURL := withPassword(t, pgtest.NewDatabase(t), password)
	env := map[string]string{"PARLEY_DATA_DIR": dataDir, "XDG_CONFIG_HOME": t.TempDir(), "PARLEY_STORE_POSTGRES_URL": pgURL}

	// The store is open, as in a running Parley.
	if code, out := runMigrate(t, env, "--to", "postgres"); code != 1 || !strings.Contains(out, "is Parley running?") {
		t.Fatalf("with the database open elsewhere: exit %d, want 1 and a refusal", code)
	}
	src.Close()

	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"wrong engine", env, []string{"--to", "mysql"}, "the only target is postgres"},
		{"no URL", map[string]string{"PARLEY_DATA_DIR": dataDir, "XDG_CONFIG_HOME": t.TempDir()}, []string{"--to", "postgres"}, "set store.postgres_url"},
		{"no SQLite file", map[string]string{"PARLEY_DATA_DIR": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()},
			[]string{"--to", "postgres", "--postgres-url", pgURL}, "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, out := runMigrate(t, tt.env, tt.args...); code != 1 || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want 1 and %q", code, tt.want)
			}
		})
	}

	code, out := runMigrate(t, env, "--to", "postgres")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out, password) {
		t.Errorf("the output shows the URL's password")
	}
	lines := checkLine.FindAllStringSubmatch(out, -1)
	if len(lines) != 36 {
		t.Errorf("%d table lines, want one for each of the 36 tables", len(lines))
	}
	for _, l := range lines {
		// message_index_todo is a queue the store empties when it opens
		// (the conversations' index, migration 00020).
		if (l[2] == "0" && l[1] != "message_index_todo") || l[4] != "ok" {
			t.Errorf("table %s: %s rows, %s; want rows, ok", l[1], l[2], l[4])
		}
	}

	code, out = runMigrate(t, env, "--to", "postgres")
	if code != 1 || !strings.Contains(out, "already holds Parley data") || !strings.Contains(out, "drop and recreate") {
		t.Fatalf("second run: exit %d, want 1 and a refusal saying how to start over", code)
	}
	if strings.Contains(out, password) {
		t.Errorf("the output shows the URL's password")
	}

	// Read back through both engines' public methods.
	src, err = store.Open(ctx, filepath.Join(dataDir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, pgURL, postgres.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	for _, r := range storetest.Readers {
		t.Run(r.Name, func(t *testing.T) {
			want, err := r.Read(ctx, src, filled)
			if err != nil {
				t.Fatalf("from SQLite: %v", err)
			}
			got, err := r.Read(ctx, dst, filled)
			if err != nil {
				t.Fatalf("from PostgreSQL: %v", err)
			}
			// Keyword scores are on each engine's own scale.
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(kb.Result{}, "Score")); diff != "" {
				t.Errorf("SQLite (-) and its copy (+) differ:\n%s", diff)
			}
		})
	}
	found, err := dst.KeywordSearch(ctx, []string{filled.Scope}, `"kubernetes" OR "next_run_at"`, 5)
	if err != nil || len(found) == 0 || !strings.Contains(found[0].Text, "kubernetes") {
		t.Errorf("KeywordSearch in the copy = %+v, %v; want the runbook's passage", found, err)
	}
	// New rows get ids past the copied ones.
	if err := dst.AppendLog(ctx, filled.Parent, task.Entry{At: time.Now(), Kind: "tool", Text: "after the copy"}); err != nil {
		t.Errorf("a new task log entry after the copy: %v", err)
	}
	if err := dst.AddRevision(ctx, evolve.Revision{Scope: filled.Scope, Kind: "memo", Name: "self", Action: "noted", At: time.Now()}); err != nil {
		t.Errorf("a new revision after the copy: %v", err)
	}
	copied, err := dst.AuditEntries(ctx, bot.AuditFilter{}, 1)
	if err != nil || len(copied) != 1 {
		t.Fatalf("the copy's newest audit entry: %+v, %v", copied, err)
	}
	if err := dst.Audit(ctx, bot.AuditEntry{At: time.Now(), Actor: "operator", Action: "store.migrate", Via: "cli"}); err != nil {
		t.Errorf("a new audit entry after the copy: %v", err)
	} else if got, err := dst.AuditEntries(ctx, bot.AuditFilter{}, 1); err != nil || len(got) != 1 || got[0].ID <= copied[0].ID {
		t.Errorf("the newest audit entry after the copy = %+v, %v; want the new one, its ID past %d", got, err, copied[0].ID)
	}

}
