package webconsole_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
	"github.com/parleybot/parley/webconsole"
	"github.com/parleybot/parley/webconsole/signin"
)

// The console's pages against a store the size issue 29 names: 10,000
// conversations and 1,000,000 messages (docs/footprint.md, "Console
// pages"). Each page is a whole GET through the server's handler, signed
// in, and reports its p50 and p95 in milliseconds:
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkPages -benchtime 200x ./webconsole/
//
// The SQLite database is built once (36-42 s on a 2-core VM) and kept under
// os.TempDir() as parley-console-bench-v<benchVersion>.db: later runs
// reuse it. Delete the file, or bump benchVersion when what is built
// changes, to build it again. With PARLEY_TEST_POSTGRES_URL set (source
// .ci/postgres), the same data is imported into a fresh PostgreSQL
// database (postgres.Import, COPY) and measured too.

// benchVersion names the cached database: bump it when the data built
// changes.
const benchVersion = 4

const (
	benchConversations = 10_000
	benchPerChat       = 100 // messages per conversation: 1,000,000 in all
	benchPeople        = 334 // per platform
	benchPerson        = "slack:U0007"
	benchAdmin         = "slack:UADM"
)

var benchPlatforms = []string{"slack", "telegram", "discord"}

// benchStore is what the benchmark needs of either engine.
type benchStore interface {
	webconsole.Data
	signin.Auth
	bot.AuditLog
	UndecidedApprovals(ctx context.Context) ([]approvals.Record, error)
	ApprovalHistory(ctx context.Context, f approvals.HistoryFilter, limit int) ([]approvals.Record, error)
}

// storeApprovals lists approvals straight from the store, as the core's
// (bot/approvals) do.
type storeApprovals struct{ db benchStore }

func (a storeApprovals) PendingApprovals(ctx context.Context) ([]approvals.Record, error) {
	return a.db.UndecidedApprovals(ctx)
}

func (a storeApprovals) ApprovalHistory(ctx context.Context, f approvals.HistoryFilter, limit int) ([]approvals.Record, error) {
	return a.db.ApprovalHistory(ctx, f, limit)
}

func (a storeApprovals) DecideApproval(context.Context, string, chat.User, bool) (approvals.Outcome, error) {
	return approvals.Outcome{}, errors.New("not in the benchmark")
}

var benchDB struct {
	once sync.Once
	path string
	err  error
}

// benchPath is the built SQLite database, built on first use.
func benchPath(b *testing.B) string {
	benchDB.once.Do(func() {
		benchDB.path = filepath.Join(os.TempDir(), fmt.Sprintf("parley-console-bench-v%d.db", benchVersion))
		if _, err := os.Stat(benchDB.path); err == nil {
			b.Logf("reusing %s", benchDB.path)
			return
		}
		start := time.Now()
		benchDB.err = buildBench(context.Background(), b, benchDB.path)
		b.Logf("built %s in %s", benchDB.path, time.Since(start).Round(time.Second))
	})
	if benchDB.err != nil {
		b.Fatal(benchDB.err)
	}
	return benchDB.path
}

func BenchmarkPages(b *testing.B) {
	path := benchPath(b)
	b.Run("sqlite", func(b *testing.B) { benchPages(b, benchSQLite(b, path)) })
	b.Run("postgres", func(b *testing.B) { benchPages(b, benchPostgres(b, path)) })
}

// benchSQLite is the built SQLite database, open until b ends.
func benchSQLite(b *testing.B, path string) *store.DB {
	db, err := store.Open(b.Context(), path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// benchPostgres is the built SQLite database imported into a fresh
// PostgreSQL database (postgres.Import, COPY) and vacuumed; the benchmark
// is skipped without PARLEY_TEST_POSTGRES_URL.
func benchPostgres(b *testing.B, path string) *postgres.DB {
	if os.Getenv(pgtest.EnvURL) == "" {
		b.Skipf("%s is not set", pgtest.EnvURL)
	}
	src, err := store.Open(b.Context(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dbURL := pgtest.NewDatabase(b)
	pg, err := postgres.Open(b.Context(), dbURL, postgres.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pg.Close() })
	start := time.Now()
	if _, err := pg.Import(b.Context(), src); err != nil {
		b.Fatal(err)
	}
	// A database in use has its statistics and visibility map, and the
	// import's pages written out: what autovacuum and the checkpointer
	// would do over the next minutes, done now, so that they do not
	// run during the measurement. (CHECKPOINT needs a superuser or
	// pg_checkpoint: without, the measurement goes on.)
	conn, err := pgx.Connect(b.Context(), dbURL)
	if err != nil {
		b.Fatal(err)
	}
	_, err = conn.Exec(b.Context(), "VACUUM ANALYZE")
	if err == nil {
		if _, err := conn.Exec(b.Context(), "CHECKPOINT"); err != nil {
			b.Logf("no checkpoint: %v", err)
		}
	}
	conn.Close(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("imported into PostgreSQL and vacuumed in %s", time.Since(start).Round(time.Second))
	return pg
}

// benchPages measures each page on db.
func benchPages(b *testing.B, db benchStore) {
	ctx := b.Context()
	// The sessions of earlier runs on the cached file: signed out.
	if _, err := db.RevokeSessions(ctx, ""); err != nil {
		b.Fatal(err)
	}
	srv, err := webconsole.New(webconsole.Config{Auth: db, Audit: db, Data: db,
		IsAdmin: func(u string) bool { return u == benchAdmin }})
	if err != nil {
		b.Fatal(err)
	}
	srv.UseApprovals(storeApprovals{db})
	// A transcript in the middle of the list.
	list, err := db.Conversations(ctx, store.ConversationFilter{Limit: 5001})
	if err != nil || len(list) != 5001 {
		b.Fatalf("conversations: %d, %v", len(list), err)
	}
	transcript := list[5000].ID
	admin, person := benchSignIn(b, srv, benchAdmin), benchSignIn(b, srv, benchPerson)
	for _, p := range []struct {
		name, path, want string
		cookie           *http.Cookie
	}{
		{"admin/home", "/", "<h1>Overview</h1>", admin},
		{"admin/conversations", "/conversations", transcriptLink(list[0].ID), admin},
		{"admin/conversations-page-50", "/conversations?page=50", transcriptLink(list[49*50].ID), admin},
		{"admin/transcript", "/conversations/" + transcript, "shell", admin},
		{"admin/approvals", "/approvals", "Approve", admin},
		{"admin/audit", "/audit", "memory.write", admin},
		{"admin/sessions", "/sessions", "slack:U0007", admin},
		{"person/home", "/", "What Parley keeps about you", person},
		{"person/conversations", "/conversations", "/conversations/", person},
		// Searches: a project's name (in ~900 messages), Chinese (in
		// ~450), a word in nearly every message, three such words, one
		// with a name; a person's in their ~20 conversations.
		{"admin/search", "/conversations?q=" + benchProject(7), "<mark>" + benchProject(7) + "</mark>", admin},
		{"admin/search-chinese", "/conversations?q=" + url.QueryEscape("设备"), "<mark>设备</mark>", admin},
		{"admin/search-common", "/conversations?q=deploy", "<mark>deploy</mark>", admin},
		{"admin/search-common-words", "/conversations?q=deploy+build+server", "<mark>", admin},
		{"admin/search-mixed", "/conversations?q=deploy+" + benchProject(7), "<mark>", admin},
		{"admin/search-page-5", "/conversations?q=" + benchProject(7) + "&page=5", "<mark>" + benchProject(7) + "</mark>", admin},
		{"person/search", "/conversations?q=" + benchProject(7), "/conversations/", person},
		{"person/search-common", "/conversations?q=deploy", "<mark>deploy</mark>", person},
	} {
		b.Run(p.name, func(b *testing.B) {
			get := func() *httptest.ResponseRecorder {
				r := httptest.NewRequest(http.MethodGet, p.path, nil)
				r.AddCookie(p.cookie)
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, r)
				return w
			}
			if w := get(); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), p.want) {
				b.Fatalf("GET %s: %d, want 200 with %q\n%.2000s", p.path, w.Code, p.want, w.Body.String())
			}
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if w := get(); w.Code != http.StatusOK {
					b.Fatalf("GET %s: %d", p.path, w.Code)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			ms := func(q float64) float64 {
				return float64(took[min(int(q*float64(len(took))), len(took)-1)]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.95), "p95-ms")
		})
	}
}

func transcriptLink(id string) string { return `href="/conversations/` + id + `"` }

// benchSignIn signs user in through a one-time link and returns the
// session's cookie.
func benchSignIn(b *testing.B, srv *webconsole.Server, user string) *http.Cookie {
	link, err := srv.NewLink(b.Context(), user)
	if err != nil {
		b.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		b.Fatal(err)
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, u.Path, nil))
	for _, c := range w.Result().Cookies() {
		if c.Name == "parley_console" && c.Value != "" {
			return c
		}
	}
	b.Fatalf("signing in as %s: %d, no cookie", user, w.Code)
	return nil
}

// buildBench writes the benchmark's database to path: into a file beside
// it first, renamed when whole, so that an interrupted build is never
// reused.
func buildBench(ctx context.Context, b *testing.B, path string) error {
	tmp := path + ".building"
	for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		os.Remove(f)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clock struct {
		sync.Mutex
		t time.Time
	}
	clock.t = base
	now := func() time.Time { clock.Lock(); defer clock.Unlock(); return clock.t }
	at := func(t time.Time) { clock.Lock(); defer clock.Unlock(); clock.t = t }
	db, err := store.Open(ctx, tmp, store.WithClock(now))
	if err != nil {
		return err
	}
	defer db.Close()
	phase := time.Now()
	lap := func(what string) {
		b.Logf("build: %s in %s", what, time.Since(phase).Round(time.Millisecond))
		phase = time.Now()
	}
	// People and their names (approvals show them).
	for _, p := range benchPlatforms {
		for u := range benchPeople {
			key := fmt.Sprintf("%s:U%04d", p, u)
			if err := db.UpsertUser(ctx, key, p, fmt.Sprintf("Person %s %d", p, u)); err != nil {
				return err
			}
		}
	}
	if err := db.UpsertUser(ctx, benchAdmin, "slack", "Admin"); err != nil {
		return err
	}
	for i := range 20 {
		fact := fmt.Sprintf("fact %02d: prefers %s", i, words(rand.New(rand.NewPCG(uint64(i), 1)), 8))
		err := db.EditMemory(ctx, benchPerson, agent.Facts, func(e []string) ([]string, error) { return append(e, fact), nil })
		if err != nil {
			return err
		}
	}
	lap("people")
	// The conversations, five minutes apart.
	ids := make([]string, benchConversations)
	for i := range benchConversations {
		at(base.Add(time.Duration(i) * 5 * time.Minute))
		platform := benchPlatforms[i%len(benchPlatforms)]
		starter := fmt.Sprintf("%s:U%04d", platform, (i/len(benchPlatforms))%benchPeople)
		other := fmt.Sprintf("%s:U%04d", platform, (i/len(benchPlatforms)+1)%benchPeople)
		th := chat.Thread{Platform: platform, Space: "W1", Chat: fmt.Sprintf("C%02d", i%12), ID: fmt.Sprintf("t%05d", i)}
		sid, err := db.SessionFor(ctx, th)
		if err != nil {
			return err
		}
		ids[i] = sid
		if err := db.Set(ctx, "starter:"+sid, starter); err != nil {
			return err
		}
		msgs := benchTranscript(i)
		if err := db.AppendMessages(ctx, sid, msgs...); err != nil {
			return err
		}
		// The turns on record (run_signals): the starter's first two and
		// another person's, as evolution keeps them.
		var n int
		for _, m := range msgs {
			if m.Role != llm.RoleUser || n == 3 {
				continue
			}
			author := starter
			if n == 2 {
				author = other
			}
			n++
			r := evolve.Run{Scope: platform + ":W1:" + th.Chat, SessionID: sid, Author: author, Key: m.Key, At: now(),
				Signals: evolve.Signals{ToolCalls: 1}}
			if err := db.RecordRun(ctx, r); err != nil {
				return err
			}
		}
		if i%2000 == 1999 {
			lap(fmt.Sprintf("conversations to %d", i+1))
		}
	}
	// Approvals: 2,000 decided, 12 waiting.
	end := base.Add(benchConversations * 5 * time.Minute)
	for i := range 2012 {
		sid := ids[(i*7)%len(ids)]
		platform := benchPlatforms[(i*7)%benchConversations%len(benchPlatforms)]
		requester := fmt.Sprintf("%s:U%04d", platform, i%benchPeople)
		created := end.Add(time.Duration(i-2012) * time.Minute)
		rec := approvals.Record{ID: fmt.Sprintf("apr%06d", i), SessionID: sid, ToolCallID: fmt.Sprintf("call-apr-%d", i),
			ToolName: []string{"shell", "web_fetch", "memory"}[i%3], Summary: "run " + words(rand.New(rand.NewPCG(uint64(i), 2)), 10),
			Mandatory: i%3 == 0, Requester: requester, Approvers: []string{benchAdmin, requester},
			Status: approvals.StatusPending, CreatedAt: created, ExpiresAt: created.Add(24 * time.Hour)}
		if i >= 2000 {
			rec.ExpiresAt = time.Now().Add(365 * 24 * time.Hour)
		}
		if _, _, err := db.CreateApproval(ctx, rec); err != nil {
			return err
		}
		if i < 2000 {
			status := []string{approvals.StatusApproved, approvals.StatusDenied}[i%2]
			by, _ := chat.ParseUserKey(benchAdmin)
			if _, err := db.DecideApproval(ctx, rec.ID, status, by, created.Add(time.Minute)); err != nil {
				return err
			}
		}
	}
	lap("approvals")
	// The audit log: 20,000 entries.
	for i := range 20_000 {
		e := bot.AuditEntry{At: end.Add(time.Duration(i) * time.Second), Actor: fmt.Sprintf("slack:U%04d", i%benchPeople),
			Action: []string{"tool.shell", "memory.write", "approval.approve", "skill.edit"}[i%4],
			Target: ids[i%len(ids)], Detail: words(rand.New(rand.NewPCG(uint64(i), 3)), 12), Via: "slack"}
		if err := db.Audit(ctx, e); err != nil {
			return err
		}
	}
	lap("audit log")
	if err := db.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// benchTranscript is a conversation of benchPerChat messages: people's
// questions, answers of a few hundred characters, and every sixth turn
// a tool call with its result.
func benchTranscript(i int) []llm.Message {
	rng := rand.New(rand.NewPCG(uint64(i), 0))
	var msgs []llm.Message
	for t := 0; len(msgs) < benchPerChat; t++ {
		author := "Starter"
		if t%4 == 3 {
			author = "Other"
		}
		question := words(rng, 10+rng.IntN(30))
		// What a search looks for: a project's name in every question
		// (each of the 500 in ~900 messages), and Chinese in one question
		// of 50 (each of 20 phrases in ~450).
		question += " about " + benchProject(rng.IntN(benchProjects))
		if rng.IntN(50) == 0 {
			question += " " + benchChinese[rng.IntN(len(benchChinese))]
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Author: author, Key: fmt.Sprintf("evt-%d-%d", i, t),
			Text: question + "?"})
		if t%6 == 3 {
			call := fmt.Sprintf("call_%d_%d", i, t)
			args, _ := json.Marshal(map[string]any{"command": "grep -rn " + words(rng, 2) + " /srv/app", "timeout": 60})
			msgs = append(msgs,
				llm.Message{Role: llm.RoleAssistant, Model: "openai/gpt-5-mini", ToolCalls: []llm.ToolCall{{ID: call, Name: "shell", Arguments: args}}},
				llm.Message{Role: llm.RoleTool, ToolCallID: call, ToolName: "shell", Text: strings.Repeat(words(rng, 8)+"\n", 6+rng.IntN(10))})
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Model: "openai/gpt-5-mini", Text: words(rng, 40+rng.IntN(120)) + "."})
	}
	return msgs[:benchPerChat]
}

var benchWords = strings.Fields(`the deploy build server config database migration release branch
	test error log request user message channel thread answer model tool shell file folder queue
	replica lease cost token memory skill reminder schedule approval console page index query`)

// benchProjects is how many project names the questions draw from.
const benchProjects = 500

// benchProject is the name of project n: a word of its own.
func benchProject(n int) string { return fmt.Sprintf("kestrel%03d", n) }

var benchChinese = strings.Fields(`申领设备的流程 报销发票 服务器迁移 数据库备份 会议室预订 年假申请 合同审批 网络故障
	打印机坏了 密码重置 新员工入职 出差报销 系统升级 权限申请 客户投诉 月度报表 代码评审 测试环境 发布计划 安全审计`)

// words is n words drawn by rng.
func words(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for j := range n {
		if j > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(benchWords[rng.IntN(len(benchWords))])
	}
	return sb.String()
}
