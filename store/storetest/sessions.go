package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

var (
	slackThread = chat.Thread{Platform: "slack", Space: "T01", Chat: "C01", ID: "1700000000.000100"}
	slackDM     = chat.Thread{Platform: "slack", Space: "T01", Chat: "D01"}
	tgTopic     = chat.Thread{Platform: "telegram", Chat: "-100123", ID: "7"}
	tgPrivate   = chat.Thread{Platform: "telegram", Chat: "42"}
	discord     = chat.Thread{Platform: "discord", Space: "G1", Chat: "1200000000000000001"}
)

var sessionTests = []test{
	{"SessionForBindsEachThreadOnce", testSessionForBindsEachThreadOnce},
	{"SessionForConcurrent", testSessionForConcurrent},
	{"SessionForSurvivesRestart", testSessionForSurvivesRestart},
	{"NewSessionRebinds", testNewSessionRebinds},
	{"SessionInfo", testSessionInfo},
	{"SessionNeedsPlatform", testSessionNeedsPlatform},
	{"DuplicateInjectedID", testDuplicateInjectedID},
}

// newSession returns the id of the session bound to th.
func newSession(t *testing.T, db Store, th chat.Thread) string {
	t.Helper()
	sid, err := db.SessionFor(t.Context(), th)
	if err != nil {
		t.Fatalf("SessionFor(%v): %v", th, err)
	}
	return sid
}

func testSessionForBindsEachThreadOnce(t *testing.T, s suite) {
	db := s.fresh(t)
	threads := []chat.Thread{
		slackThread, slackDM, tgTopic, tgPrivate, discord,
		// Each differs from one above in a single part, so is another
		// conversation.
		{Platform: "slack", Space: "T02", Chat: "C01", ID: "1700000000.000100"},
		{Platform: "slack", Space: "T01", Chat: "C02", ID: "1700000000.000100"},
		{Platform: "slack", Space: "T01", Chat: "C01", ID: "1700000000.000200"},
		{Platform: "console", Space: "T01", Chat: "D01"},
	}
	ids := make(map[string]chat.Thread)
	for _, th := range threads {
		id := newSession(t, db, th)
		if other, dup := ids[id]; dup {
			t.Errorf("threads %v and %v share session %s", other, th, id)
		}
		ids[id] = th
	}
	for id, th := range ids {
		if again := newSession(t, db, th); again != id {
			t.Errorf("SessionFor(%v) = %s, then %s", th, id, again)
		}
	}
}

func testSessionForConcurrent(t *testing.T, s suite) {
	// Two handles on one database stand for two processes: their writes
	// do not queue on a shared connection, only on the database's locks.
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	threads := []chat.Thread{slackThread, slackDM, tgTopic, discord}

	const callers = 16
	got := make([][]string, len(threads))
	for i := range got {
		got[i] = make([]string, callers)
	}
	var wg sync.WaitGroup
	for i, th := range threads {
		for c := range callers {
			wg.Go(func() {
				id, err := dbs[c%len(dbs)].SessionFor(t.Context(), th)
				if err != nil {
					t.Errorf("SessionFor(%v): %v", th, err)
				}
				got[i][c] = id
			})
		}
	}
	wg.Wait()

	seen := make(map[string]bool)
	for i, ids := range got {
		for _, id := range ids {
			if id != ids[0] {
				t.Errorf("thread %v got sessions %q and %q", threads[i], ids[0], id)
				break
			}
		}
		if seen[ids[0]] {
			t.Errorf("session %q bound to two threads", ids[0])
		}
		seen[ids[0]] = true
	}
}

func testSessionForSurvivesRestart(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	want := make(map[chat.Thread]string)
	for _, th := range []chat.Thread{slackThread, tgPrivate, discord} {
		want[th] = newSession(t, db, th)
	}
	closeNow(t, db)

	db = reopen()
	for th, id := range want {
		if got := newSession(t, db, th); got != id {
			t.Errorf("after restart SessionFor(%v) = %s, want %s", th, got, id)
		}
	}
}

func testNewSessionRebinds(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()

	first := newSession(t, db, tgPrivate)
	if err := db.AppendMessages(ctx, first, llm.Message{Role: llm.RoleUser, Text: "before /new"}); err != nil {
		t.Fatal(err)
	}
	other := newSession(t, db, slackThread)

	second, err := db.NewSession(ctx, tgPrivate)
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatalf("NewSession returned the old session %s", first)
	}
	if got, _ := db.SessionFor(ctx, tgPrivate); got != second {
		t.Errorf("after NewSession, SessionFor = %s, want %s", got, second)
	}
	if got, _ := db.SessionFor(ctx, slackThread); got != other {
		t.Errorf("NewSession on one thread moved another: SessionFor = %s, want %s", got, other)
	}
	// The old conversation is kept, not deleted.
	if msgs, err := db.Messages(ctx, first); err != nil || len(msgs) != 1 {
		t.Errorf("old session after NewSession: %d messages, %v; want 1", len(msgs), err)
	}
	if msgs, err := db.Messages(ctx, second); err != nil || len(msgs) != 0 {
		t.Errorf("new session: %d messages, %v; want 0", len(msgs), err)
	}

	// A thread never seen gets bound by NewSession too.
	fresh, err := db.NewSession(ctx, discord)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := db.SessionFor(ctx, discord); got != fresh {
		t.Errorf("SessionFor after NewSession on an unbound thread = %s, want %s", got, fresh)
	}

	// The rebinding is durable.
	if got, _ := reopen().SessionFor(ctx, tgPrivate); got != second {
		t.Errorf("after reopen SessionFor = %s, want %s", got, second)
	}
}

func testSessionInfo(t *testing.T, s suite) {
	db := s.fresh(t) // a ticking clock and ids s1, s2, ...
	ctx := t.Context()

	id := newSession(t, db, slackThread) // clock reading 0
	info, err := db.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := bot.SessionInfo{ID: "s1", Thread: slackThread, CreatedAt: epoch, UpdatedAt: epoch}
	if info != want {
		t.Errorf("new session:\n got %+v\nwant %+v", info, want)
	}

	msgs := []llm.Message{{Role: llm.RoleUser, Text: "a"}, {Role: llm.RoleAssistant, Text: "b"}}
	if err := db.AppendMessages(ctx, id, msgs...); err != nil { // clock reading 1
		t.Fatal(err)
	}
	info, err = db.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want.UpdatedAt, want.Messages = epoch.Add(time.Second), 2
	if info != want {
		t.Errorf("after append:\n got %+v\nwant %+v", info, want)
	}

	// After /new the old session still says where it came from.
	if _, err := db.NewSession(ctx, slackThread); err != nil {
		t.Fatal(err)
	}
	if info, _ := db.Session(ctx, id); info.Thread != slackThread {
		t.Errorf("old session's thread = %v, want %v", info.Thread, slackThread)
	}

	if _, err := db.Session(ctx, "missing"); !s.notFound(err) {
		t.Errorf("Session(missing) error = %v, want not found", err)
	}
}

func testSessionNeedsPlatform(t *testing.T, s suite) {
	db := s.fresh(t)
	if _, err := db.SessionFor(t.Context(), chat.Thread{Chat: "C1"}); err == nil {
		t.Error("SessionFor accepted a thread without a platform")
	}
	if _, err := db.NewSession(t.Context(), chat.Thread{Chat: "C1"}); err == nil {
		t.Error("NewSession accepted a thread without a platform")
	}
}

func testDuplicateInjectedID(t *testing.T, s suite) {
	db, _ := s.open(t, Options{NewID: func() string { return "same" }})
	newSession(t, db, slackThread)
	// An id generator that repeats itself is a bug worth an error, not a
	// thread silently joined to another's session.
	if id, err := db.SessionFor(t.Context(), slackDM); err == nil {
		t.Errorf("second session with a repeated id: got %s, want an error", id)
	}
}
