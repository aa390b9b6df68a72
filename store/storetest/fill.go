package storetest

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/webconsole/signin"
)

// Fill and Readers serve tests that copy a database from one engine to
// the other (parley migrate): Fill writes a row into every table through
// the public methods, and each Reader reads part of it back, so the same
// reader on the source and on the copy must return the same.

// Filled names what Fill wrote, for Readers.
type Filled struct {
	Session, Parent string // a conversation's session, and one with a task
	User            string
	Scope           string // of the knowledge base, learning and reminders
	Owner           string // of the reminders
	Lease, Holder   string
	At              time.Time // when the leases and reminders were written
}

// Fill writes at least one row into every table of the schema and returns
// what it wrote. The knowledge base's document holds the word
// "kubernetes" and its passages have vectors of model "m1".
func Fill(t testing.TB, db Store) Filled {
	t.Helper()
	ctx := t.Context()
	f := Filled{User: "slack:U1", Scope: "space:slack:T1", Owner: "slack:U1", Lease: "receive:discord", Holder: "r1", At: epoch}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	th := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	var err error
	f.Session, err = db.SessionFor(ctx, th)
	must(err)
	shot, photo := pictures()
	must(db.AppendMessages(ctx, f.Session,
		llm.Message{Role: llm.RoleUser, Text: "look at this ünïcode 注意", Images: []llm.Image{shot, photo}},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shell", Arguments: []byte(`{"cmd":"ls"}`)}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "shell", Text: "done", Images: []llm.Image{shot}},
	))
	must(db.UpsertUser(ctx, f.User, "slack", "Ana"))
	must(db.EditMemory(ctx, f.User, agent.Facts, add("likes tea")))
	must(db.EditMemory(ctx, f.User, agent.Profile, add("SRE in Berlin")))
	must(db.EditTeamNotes(ctx, f.Scope, f.User, add("we deploy on Tuesdays 🚀")))
	must(db.PutSkill(ctx, f.Scope, evolve.Skill{Slug: "pdf", Name: "pdf", Description: "when a PDF form must be filled 注意",
		Body: "Run scripts/fill.py.", CreatedAt: epoch, UpdatedAt: epoch, Origin: "https://skills.example/pdf/SKILL.md",
		Files: map[string]string{"scripts/fill.py": "print('ok')\n"}}))
	for _, key := range []string{"T1:C1:1.0", "T1:C1:2.0"} {
		_, err := db.Accept(ctx, key, "slack", []byte(`{"text":"hi"}`))
		must(err)
	}
	must(db.MarkDone(ctx, "T1:C1:1.0"))
	must(db.SaveReply(ctx, outbound.OutboxRecord{InboxKey: "T1:C1:1.0", SessionID: f.Session, Thread: th,
		Refs: []string{"1700000001.000200", `quo"te`}, Text: "part one", Status: outbound.ReplyDelivered, Attempts: 2}))
	rec := approvals.Record{ID: "ap1", SessionID: f.Session, ToolCallID: "c1", ToolName: "shell", Summary: "rm -rf /tmp/x",
		Requester: f.User, Approvers: []string{f.User, "slack:U2"}, Status: approvals.StatusPending, Mandatory: true,
		Risks: []string{"deletes files"}, ExpiresAt: epoch.Add(10 * time.Minute), CreatedAt: epoch}
	_, _, err = db.CreateApproval(ctx, rec)
	must(err)
	must(db.SetApprovalRefs(ctx, "ap1", []chat.MessageRef{{Thread: th, ID: "17.1"}}))
	_, err = db.DecideApproval(ctx, "ap1", approvals.StatusApproved, chat.User{Platform: "slack", ID: "U2"}, epoch.Add(time.Minute))
	must(err)
	_, _, err = db.CreateApproval(ctx, approvals.Record{ID: "ap2", SessionID: f.Session, ToolCallID: "c2", ToolName: "web_fetch",
		Summary: "web_fetch https://example.com/?d=1", Requester: f.User, Approvers: []string{f.User}, Status: approvals.StatusPending,
		Private: true, ExpiresAt: epoch.Add(10 * time.Minute), CreatedAt: epoch})
	must(err)
	must(db.Set(ctx, "telegram:offset", "42"))

	b := KeywordBase(t, db)
	Ingest(t, b, f.Scope, "runbook.md", "# Runbook\n\nRestart the kubernetes pod.\nThen check next_run_at.\n\nCall the on-call person.\n")
	pending, err := db.MissingVectors(ctx, "m1", 100)
	must(err)
	var vecs []kb.Vector
	for i, p := range pending {
		vecs = append(vecs, kb.Vector{Hash: p.Hash, Vec: []float32{float32(i), 0.5, -1}})
	}
	must(db.PutVectors(ctx, "m1", vecs))

	must(db.RecordRun(ctx, evolve.Run{Scope: f.Scope, SessionID: f.Session, Author: f.User, Key: "k1", At: epoch,
		Signals: evolve.Signals{ToolCalls: 3, TransientErrors: 1, Recovered: true, SkillsRead: []string{"deploy"}, Weakness: true}}))
	_, err = db.MarkCorrected(ctx, f.Session, f.User)
	must(err)
	must(db.AddImpressions(ctx, f.Scope, []string{"deploy", "triage"}))
	must(db.MarkReflected(ctx, f.Scope, epoch))
	must(db.SetMemo(ctx, f.Scope, evolve.MemoSelf, "Weakness: bucket regions"))
	must(db.AddRevision(ctx, evolve.Revision{Scope: f.Scope, Kind: "skill", Name: "deploy", Action: "patched", Before: "# old", At: epoch}))
	must(db.RecordReflection(ctx, evolve.ReflectionRecord{Scope: f.Scope, At: epoch, Changes: 2, Calls: 3, Tokens: 54_118,
		Nanos: 81_000_000, Unpriced: 1, Err: "the reflection cycle's budget is spent"}))

	once := remind.Item{Kind: remind.KindReminder, Scope: f.Scope, Owner: f.Owner, OwnerName: "Ana", Targets: []string{f.Owner},
		Place: remind.Place{Platform: "slack", Space: "T1", Chat: "C1"}, Text: "stand-up", Zone: "Europe/Berlin", Next: epoch}
	_, err = db.AddItem(ctx, once, 0)
	must(err)
	daily := once
	daily.Kind, daily.Spec, daily.Text, daily.Targets, daily.Next = remind.KindSchedule, "0 9 * * *", "summarize", nil, epoch.Add(time.Hour)
	id, err := db.AddItem(ctx, daily, 0)
	must(err)
	_, err = db.RecordItemRun(ctx, id, true, "3 issues", epoch)
	must(err)
	claims, err := db.ClaimDue(ctx, epoch.Add(time.Second), time.Hour, 10)
	must(err)
	if len(claims) == 0 {
		t.Fatal("Fill: no reminder claimed")
	}
	must(db.ClaimDelivered(ctx, claims[0]))

	f.Parent, err = db.NewSession(ctx, chat.Thread{Platform: "slack", Space: "T1", Chat: "C2"})
	must(err)
	_, err = db.SavePlan(ctx, f.Parent, f.User, task.Plan{Items: []task.Item{{Text: "read the logs", Status: task.Done}, {Text: "fix it", Status: task.InProgress}}},
		[]task.Entry{{At: epoch, Kind: "plan", Text: "item 1 added"}})
	must(err)
	must(db.AppendLog(ctx, f.Parent, task.Entry{At: epoch.Add(time.Minute), Kind: "tool", Text: "ran ls"}))
	_, err = db.AddHelper(ctx, task.Helper{Parent: f.Parent, Item: 2, ItemText: "fix it", Instruction: "fix the config", Status: task.HelperRunning})
	must(err)

	ok, err := db.HoldLease(ctx, f.Lease, f.Holder, epoch, time.Hour)
	if err != nil || !ok {
		t.Fatalf("HoldLease = %v, %v", ok, err)
	}
	_, err = db.Beat(ctx, f.Holder, epoch, epoch.Add(-time.Minute))
	must(err)

	must(db.RecordCost(ctx, bot.Cost{At: epoch, User: f.User, Agent: "main", Place: "slack:C1", Session: f.Session,
		Model: "anthropic/claude-sonnet-4-5", Usage: llm.Usage{InputTokens: 1200, OutputTokens: 300, CachedTokens: 800, CacheWriteTokens: 64},
		Nanos: 4_170_000, Priced: true}))
	must(db.RecordCost(ctx, bot.Cost{At: epoch.Add(time.Second), User: f.User, Agent: "main", Place: "slack:C1", Session: f.Session,
		Model: "local/llama", Usage: llm.Usage{InputTokens: 90, OutputTokens: 10}}))

	// The console's records hold hashes only; they are copied as they are,
	// so a pending sign-in link and the signed-in browsers still work on
	// the copy.
	must(db.AddLogin(ctx, fillLogin))
	must(db.AddSession(ctx, fillSession))
	must(db.AddSession(ctx, signin.Session{Hash: hashFor("fill-revoked"), User: f.User, CSRF: "c2",
		Created: epoch, Expires: epoch.AddDate(10, 0, 0), Agent: "curl/8.5.0"}))
	_, err = db.RevokeSessions(ctx, hashFor("fill-revoked")) // live at any clock of this decade
	must(err)
	must(db.Audit(ctx, bot.AuditEntry{At: epoch, Actor: "operator", Action: "console.signin", Detail: "parley console login", Via: "cli"}))
	must(db.Audit(ctx, bot.AuditEntry{At: epoch.Add(time.Second), Actor: f.User, Action: "approval.approve", Target: "ap1",
		Detail: "shell: ls 注意", Via: "console"}))
	must(db.FinishTurn(ctx, nil, bot.TurnRecord{At: epoch, Outcome: bot.TurnAnswered, Latency: 1234 * time.Millisecond,
		Where: bot.Where{Thread: th, User: chat.User{Platform: "slack", ID: "U1", Name: "Ana"}}, ChatName: "général"}))
	must(db.FinishTurn(ctx, nil, bot.TurnRecord{At: epoch.Add(time.Second), Outcome: bot.TurnFailed}))
	return f
}

// What Fill keeps of the web console: a login and a live session.
var (
	fillLogin = signin.Login{Hash: hashFor("fill-login"), User: "operator", Admin: true,
		Created: epoch, Expires: epoch.Add(15 * time.Minute)}
	fillSession = signin.Session{Hash: hashFor("fill-session"), User: "slack:U1", CSRF: "c1",
		Created: epoch, Expires: epoch.Add(30 * 24 * time.Hour), Agent: "Mozilla/5.0 (X11; Linux x86_64)"}
)

// Reader reads part of what Fill wrote.
type Reader struct {
	Name string
	Read func(ctx context.Context, db Store, f Filled) (any, error)
}

// Readers read back what Fill wrote, table by table.
var Readers = []Reader{
	{"messages and pictures", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Messages(ctx, f.Session) }},
	{"memory", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Memory(ctx, f.User) }},
	{"team notes", func(ctx context.Context, db Store, f Filled) (any, error) { return db.TeamNotes(ctx, f.Scope) }},
	{"skills", func(ctx context.Context, db Store, f Filled) (any, error) { return db.ListSkills(ctx, f.Scope) }},
	{"unfinished inbox", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Unfinished(ctx) }},
	{"outbox", func(ctx context.Context, db Store, f Filled) (any, error) {
		rec, _, err := db.Reply(ctx, "T1:C1:1.0")
		return rec, err
	}},
	{"approval", func(ctx context.Context, db Store, f Filled) (any, error) {
		rec, _, err := db.Approval(ctx, "ap1")
		return rec, err
	}},
	{"kv", func(ctx context.Context, db Store, f Filled) (any, error) {
		v, _, err := db.Get(ctx, "telegram:offset")
		return v, err
	}},
	{"documents", func(ctx context.Context, db Store, f Filled) (any, error) { return db.AllDocuments(ctx) }},
	{"passages", func(ctx context.Context, db Store, f Filled) (any, error) {
		rs, err := db.Passages(ctx, []int64{1, 2, 3})
		slices.SortFunc(rs, func(a, b kb.Result) int { return cmp.Compare(a.ChunkID, b.ChunkID) })
		return rs, err
	}},
	{"knowledge base generation", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Generation(ctx) }},
	{"vectors", func(ctx context.Context, db Store, f Filled) (any, error) {
		got := map[int64][]float32{}
		err := db.ScanVectors(ctx, "m1", func(id int64, _ string, v []float32) { got[id] = v })
		return got, err
	}},
	{"runs", func(ctx context.Context, db Store, f Filled) (any, error) {
		return db.Runs(ctx, f.Scope, epoch.Add(-time.Hour))
	}},
	{"skill rates", func(ctx context.Context, db Store, f Filled) (any, error) {
		return db.SkillRates(ctx, f.Scope, "deploy")
	}},
	{"memo", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Memo(ctx, f.Scope) }},
	{"revisions", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Revisions(ctx, f.Scope, 10) }},
	{"reflection log", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Reflections(ctx, 10) }},
	{"reminders", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Items(ctx, f.Scope, f.Owner) }},
	{"reminder claims", func(ctx context.Context, db Store, f Filled) (any, error) { return db.PendingClaims(ctx) }},
	{"task", func(ctx context.Context, db Store, f Filled) (any, error) {
		tk, _, err := db.Task(ctx, f.Parent)
		return tk, err
	}},
	{"task log", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Log(ctx, f.Parent, 10) }},
	{"task helpers", func(ctx context.Context, db Store, f Filled) (any, error) { return db.Helpers(ctx, f.Parent) }},
	{"costs", func(ctx context.Context, db Store, f Filled) (any, error) {
		return db.CostsBy(ctx, bot.ByUser, bot.CostFilter{Session: f.Session, Since: f.At}, 0)
	}},
	{"console login", func(ctx context.Context, db Store, f Filled) (any, error) {
		// Taken once on each side: the source's and the copy's.
		l, ok, err := db.UseLogin(ctx, fillLogin.Hash, f.At.Add(time.Minute))
		return []any{l, ok}, err
	}},
	{"console sessions", func(ctx context.Context, db Store, f Filled) (any, error) {
		return db.Sessions(ctx, f.At.Add(time.Minute))
	}},
	{"audit log", func(ctx context.Context, db Store, f Filled) (any, error) {
		return db.AuditEntries(ctx, bot.AuditFilter{}, 10)
	}},
	{"turn hours", func(ctx context.Context, db Store, f Filled) (any, error) {
		return db.TurnHours(ctx, f.At.Add(-time.Hour), f.At.Add(time.Hour))
	}},
	{"lease", func(ctx context.Context, db Store, f Filled) (any, error) {
		// Held by Fill's holder for an hour: another cannot take it.
		return db.HoldLease(ctx, f.Lease, "someone else", f.At.Add(time.Minute), time.Hour)
	}},
}
