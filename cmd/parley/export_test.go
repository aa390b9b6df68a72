package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/export"
	"github.com/parleybot/parley/store"
)

// The conversations TestExport exports: two whose ids share their first
// 8 characters, and one other.
const (
	exportThreadID = "3f2a9c1e00000000000000000000a001"
	exportDMID     = "3f2a9c1e00000000000000000000b002"
	exportEmptyID  = "7c0ffee000000000000000000000c003"
)

// exportFixture writes three conversations into a SQLite file in dir the
// way the running bot does (SessionFor, AppendMessages, the run records,
// the starter): a Slack thread where two people talk to Parley, with a
// picture, a tool and a compaction summary; a Telegram chat; an empty
// Discord thread.
func exportFixture(t *testing.T, dir string) {
	t.Helper()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ids := []string{exportThreadID, exportDMID, exportEmptyID}
	db, err := store.Open(t.Context(), filepath.Join(dir, "parley.db"),
		store.WithClock(func() time.Time { return now }),
		store.WithIDs(func() string { id := ids[0]; ids = ids[1:]; return id }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	at := func(minutes int) { now = time.Date(2026, 3, 1, 10, minutes, 0, 0, time.UTC) }
	session := func(th chat.Thread) string {
		t.Helper()
		sid, err := db.SessionFor(ctx, th)
		if err != nil {
			t.Fatal(err)
		}
		return sid
	}
	appendMsgs := func(sid string, msgs ...llm.Message) {
		t.Helper()
		if err := db.AppendMessages(ctx, sid, msgs...); err != nil {
			t.Fatal(err)
		}
	}
	run := func(sid, author, key string) {
		t.Helper()
		if err := db.RecordRun(ctx, evolve.Run{Scope: "slack:T01", SessionID: sid, Author: author, Key: key, At: now}); err != nil {
			t.Fatal(err)
		}
	}

	at(0)
	thread := session(chat.Thread{Platform: "slack", Space: "T01", Chat: "C01", ID: "1700000000.000100"})
	dm := session(chat.Thread{Platform: "telegram", Chat: "42"})
	session(chat.Thread{Platform: "discord", Space: "G1", Chat: "99", ID: "5"})
	if err := db.Set(ctx, "starter:"+thread, "slack:U01"); err != nil {
		t.Fatal(err)
	}
	at(1)
	appendMsgs(thread,
		llm.Message{Role: llm.RoleUser, Text: agent.SummaryPrefix + "Ada asked about the deploy."},
		llm.Message{Role: llm.RoleAssistant, Text: "Understood. I will continue from this summary."})
	at(2)
	shot := llm.ImageHash(llm.Image{MIME: "image/png", Data: []byte("png bytes"), Width: 800, Height: 600, Name: "shot.png"})
	appendMsgs(thread, llm.Message{Role: llm.RoleUser, Text: "Why did the deploy fail?\n\n## not a heading of the export", Author: "Ada",
		Key: "k1", Preamble: "It is Sunday 10:02 UTC.", Images: []llm.Image{shot}})
	run(thread, "slack:U01", "k1")
	at(3)
	appendMsgs(thread,
		llm.Message{Role: llm.RoleAssistant, Text: "Let me look.", Model: "openai/gpt-x", Thinking: []llm.Thinking{{Text: "private reasoning"}},
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_search", Arguments: json.RawMessage(`{"q": "deploy ` + "`x`" + ` failed"}`)}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "web_search", Text: strings.Repeat("result ", 100)})
	at(4)
	appendMsgs(thread, llm.Message{Role: llm.RoleUser, Text: "It was the config, by the way.", Author: "Ada", Key: "k2"}) // a follow-up: no run of its own
	appendMsgs(thread, llm.Message{Role: llm.RoleAssistant, Text: "Then fix the config.", Model: "openai/gpt-x"})
	at(6)
	appendMsgs(thread, llm.Message{Role: llm.RoleUser, Text: "Thanks from me too", Author: "Kenji", Key: "k3"})
	run(thread, "slack:U02", "k3")
	at(5)
	appendMsgs(dm, llm.Message{Role: llm.RoleUser, Text: "hello", Author: "Ann", Key: "t1"}, llm.Message{Role: llm.RoleAssistant, Text: "Hi Ann"})
	run(dm, "telegram:42", "t1")
}

// TestExport: an operator lists the conversations and exports one as
// Markdown or JSON, to standard output or to a private file, and is told
// clearly what is wrong with a bad request.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	exportFixture(t, dir)
	env := map[string]string{"PARLEY_DATA_DIR": dir, "XDG_CONFIG_HOME": t.TempDir()}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		return execute(t.Context(), e, append([]string{"export"}, args...)), out.String(), errOut.String()
	}

	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		want    []string // in stdout (success) or stderr (failure), in this order
		notWant []string
		check   func(t *testing.T, stdout string)
	}{
		{
			name: "markdown",
			args: []string{"--conversation", exportThreadID},
			want: []string{
				"# Conversation " + exportThreadID,
				"- Conversation: `slack:T01:C01:1700000000.000100`",
				"- Platform: slack", "- Space (workspace or guild): T01", "- Chat (channel or chat): C01",
				"- Thread: 1700000000.000100", "- Started by: slack:U01",
				"- Messages: 8, from 2026-03-01T10:01:00Z to 2026-03-01T10:06:00Z (UTC)",
				"### 2026-03-01T10:01:00Z · Summary of the earlier conversation (compaction)\n\n> Ada asked about the deploy.",
				"### 2026-03-01T10:02:00Z · Ada (slack:U01)\n\n> Why did the deploy fail?\n>\n> ## not a heading of the export\n\n- Picture: shot.png (image/png, 800×600)",
				"### 2026-03-01T10:03:00Z · Parley (openai/gpt-x)\n\n> Let me look.\n\n- Tool call: `web_search` ``{\"q\": \"deploy `x` failed\"}``",
				"### 2026-03-01T10:03:00Z · Tool web_search (result)\n\n> result result",
				"### 2026-03-01T10:04:00Z · Ada (slack:U01)\n\n> It was the config, by the way.", // the follow-up, by Ada's recorded turn
				"### 2026-03-01T10:06:00Z · Kenji (slack:U02)\n\n> Thanks from me too",
			},
			// What only the model sees stays out; a tool's result is clipped.
			notWant: []string{"It is Sunday", "private reasoning", strings.Repeat("result ", 40), "png bytes", "hello"},
		},
		{
			name: "by the first 8 characters, as /status shows them",
			args: []string{"--conversation", "7C0FFEE0"},
			want: []string{"# Conversation " + exportEmptyID, "- Platform: discord", "- Thread: 5", "- Messages: none (started 2026-03-01T10:00:00Z UTC)"},
		},
		{
			name: "json",
			args: []string{"--conversation", exportThreadID, "--format", "json"},
			check: func(t *testing.T, stdout string) {
				var x export.Conversation
				if err := json.Unmarshal([]byte(stdout), &x); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, stdout)
				}
				c := x.Conversation
				if c.ID != exportThreadID || c.Name != "slack:T01:C01:1700000000.000100" || c.Platform != "slack" || c.Space != "T01" ||
					c.Chat != "C01" || c.Thread != "1700000000.000100" || c.StartedBy != "slack:U01" || c.Messages != 8 ||
					c.From != "2026-03-01T10:01:00Z" || c.To != "2026-03-01T10:06:00Z" || c.LastActivity != "2026-03-01T10:06:00Z" {
					t.Errorf("conversation: %+v", c)
				}
				if _, err := time.Parse(time.RFC3339, x.ExportedAt); err != nil {
					t.Errorf("exported_at %q: %v", x.ExportedAt, err)
				}
				var roles, authors []string
				for _, m := range x.Messages {
					roles = append(roles, m.Role)
					if m.Author != nil {
						authors = append(authors, m.Author.ID+"/"+m.Author.Name)
					}
				}
				if want := []string{"user", "assistant", "user", "assistant", "tool", "user", "assistant", "user"}; !slices.Equal(roles, want) {
					t.Errorf("roles %v, want %v", roles, want)
				}
				if want := []string{"slack:U01/Ada", "slack:U01/Ada", "slack:U02/Kenji"}; !slices.Equal(authors, want) {
					t.Errorf("authors %v, want %v", authors, want)
				}
				if m := x.Messages[0]; !m.Summary || m.Author != nil || m.Text != "Ada asked about the deploy." {
					t.Errorf("the summary: %+v", m)
				}
				if m := x.Messages[2]; m.Time != "2026-03-01T10:02:00Z" || !strings.HasPrefix(m.Text, "Why did the deploy fail?") ||
					len(m.Pictures) != 1 || m.Pictures[0] != (export.Picture{Name: "shot.png", Type: "image/png", Width: 800, Height: 600}) {
					t.Errorf("Ada's question: %+v", m)
				}
				if m := x.Messages[3]; m.Model != "openai/gpt-x" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "web_search" ||
					m.ToolCalls[0].Arguments != "{\"q\": \"deploy `x` failed\"}" {
					t.Errorf("the tool call: %+v", m)
				}
				if m := x.Messages[4]; m.Tool != "web_search" || m.Error || len([]rune(m.Text)) != export.Clip+1 || !strings.HasSuffix(m.Text, "…") {
					t.Errorf("the tool result: %+v", m)
				}
				// The shape is stable: the documented keys, no others.
				var raw struct {
					Conversation map[string]any   `json:"conversation"`
					Messages     []map[string]any `json:"messages"`
				}
				if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"id", "name", "platform", "space", "chat", "thread", "created", "last_activity", "messages"} {
					if _, ok := raw.Conversation[k]; !ok {
						t.Errorf("conversation lacks %q", k)
					}
				}
				for _, m := range raw.Messages {
					for _, k := range []string{"role", "time", "text"} {
						if _, ok := m[k]; !ok {
							t.Errorf("message lacks %q: %v", k, m)
						}
					}
				}
				if strings.Contains(stdout, "private reasoning") || strings.Contains(stdout, "It is Sunday") {
					t.Error("the JSON carries what only the model sees")
				}
			},
		},
		{
			name: "list",
			args: []string{"--list"},
			want: []string{
				"ID", "LAST ACTIVITY (UTC)", "MESSAGES", "CONVERSATION",
				exportThreadID + "  2026-03-01T10:06:00Z", "8", "slack:T01:C01:1700000000.000100, started by slack:U01",
				exportDMID + "  2026-03-01T10:05:00Z", "2", "telegram::42:",
				exportEmptyID + "  2026-03-01T10:00:00Z", "0", "discord:G1:99:5",
			},
		},
		{
			name:    "one person's",
			args:    []string{"--list", "--user", "telegram:42"},
			want:    []string{exportDMID},
			notWant: []string{exportThreadID, exportEmptyID},
		},
		{
			name:    "one who took part in another's thread",
			args:    []string{"--list", "--user", "slack:U02"},
			want:    []string{exportThreadID},
			notWant: []string{exportDMID},
		},
		{
			name: "no one's",
			args: []string{"--list", "--user", "slack:U99"},
			want: []string{"No conversations of slack:U99 on record."},
		},
		{
			name: "list as json",
			args: []string{"--list", "--format", "JSON"},
			check: func(t *testing.T, stdout string) {
				var list []export.Header
				if err := json.Unmarshal([]byte(stdout), &list); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, stdout)
				}
				var got []string
				for _, c := range list {
					got = append(got, c.ID)
				}
				if want := []string{exportThreadID, exportDMID, exportEmptyID}; !slices.Equal(got, want) {
					t.Errorf("ids %v, want %v, newest first", got, want)
				}
			},
		},
		{name: "unknown conversation", args: []string{"--conversation", "0123456789abcdef"}, code: 1,
			want: []string{"no conversation 0123456789abcdef in " + filepath.Join(dir, "parley.db"), "parley export --list"}},
		{name: "more than one", args: []string{"--conversation", "3f2a9c1e"}, code: 1,
			want: []string{"more than one conversation starts with 3f2a9c1e", "parley export --list"}},
		{name: "not hex", args: []string{"--conversation", "slack:T01:C01"}, code: 1,
			want: []string{`--conversation "slack:T01:C01": want a session id, 8 to 32 hex characters`}},
		{name: "too short", args: []string{"--conversation", "3f2a"}, code: 1, want: []string{"want a session id"}},
		{name: "unknown format", args: []string{"--conversation", exportThreadID, "--format", "pdf"}, code: 1,
			want: []string{`--format "pdf": want one of markdown, json`}},
		{name: "neither", code: 1, want: []string{"parley export --conversation <id>", "parley export --list"}},
		{name: "both", args: []string{"--list", "--conversation", exportThreadID}, code: 1, want: []string{"either --conversation <id> or --list"}},
		{name: "user without list", args: []string{"--conversation", exportThreadID, "--user", "slack:U01"}, code: 1, want: []string{"--user goes with --list"}},
		{name: "malformed user", args: []string{"--list", "--user", "U01"}, code: 1, want: []string{"want platform:id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			got := stdout
			if tc.code != 0 {
				got = stderr
				if stdout != "" {
					t.Errorf("a failure printed to stdout:\n%s", stdout)
				}
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (or not in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("output has %q:\n%s", w, got)
				}
			}
			if tc.check != nil {
				tc.check(t, stdout)
			}
		})
	}

	t.Run("out", func(t *testing.T) {
		outDir := t.TempDir()
		path := filepath.Join(outDir, "export.json")
		if err := os.WriteFile(path, []byte("an older export"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run("--conversation", exportDMID[:30], "--format", "json", "--out", path)
		if code != 0 || !strings.Contains(stdout, "Wrote 2 messages of conversation "+exportDMID+" to "+path+" (readable by you alone)") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var x export.Conversation
		if err := json.Unmarshal(data, &x); err != nil || x.Conversation.ID != exportDMID || len(x.Messages) != 2 ||
			x.Messages[0].Author == nil || *x.Messages[0].Author != (export.Author{ID: "telegram:42", Name: "Ann"}) {
			t.Fatalf("the file: %v\n%s", err, data)
		}
		// Written beside its place and renamed: nothing else is left.
		if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
			t.Errorf("the directory holds %d entries, want the export alone", len(entries))
		}
		// A file that cannot be written is an error, and nothing is left.
		if code, _, stderr := run("--conversation", exportDMID, "--out", filepath.Join(outDir, "missing", "x.md")); code != 1 || !strings.Contains(stderr, "write ") {
			t.Errorf("into a missing directory: exit %d\n%s", code, stderr)
		}
	})
}

// TestExportAfterChat: a conversation held in the terminal chat, against
// the model fake, exports with both sides' words and the person's id.
func TestExportAfterChat(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	srv.Enqueue(llmtest.Text("Paris is the capital of France."))
	if out, errOut, code := sb.run(t, "what is the capital of France?\n/quit\n", "chat"); code != 0 {
		t.Fatalf("chat: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, errOut, code := sb.run(t, "", "export", "--list", "--format", "json")
	var list []export.Header
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list) != 1 || list[0].Messages != 2 || list[0].Platform != "console" {
		t.Fatalf("list: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	out, errOut, code = sb.run(t, "", "export", "--conversation", list[0].ID[:8], "--format", "json")
	var x export.Conversation
	if err := json.Unmarshal([]byte(out), &x); code != 0 || err != nil || len(x.Messages) != 2 {
		t.Fatalf("export: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	user, answer := x.Messages[0], x.Messages[1]
	if user.Role != "user" || user.Text != "what is the capital of France?" || user.Author == nil || user.Author.ID != "console:ana" {
		t.Errorf("the question: %+v (author %+v)", user, user.Author)
	}
	if answer.Role != "assistant" || answer.Text != "Paris is the capital of France." {
		t.Errorf("the answer: %+v", answer)
	}
	if strings.Contains(out, "sk-test-e2e") {
		t.Error("the export carries the API key")
	}
}
