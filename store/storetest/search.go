package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
)

// Full-text search of conversations (the console's Conversations page):
// what people wrote and Parley answered is found, in English and in CJK
// text; a person finds only their own conversations; what is deleted is
// not found; nothing typed breaks the query.

var searchTests = []test{
	{"Languages", testSearchLanguages},
	{"WhatIsIndexed", testSearchWhatIsIndexed},
	{"Hit", testSearchHit},
	{"Person", testSearchPerson},
	{"Filters", testSearchFilters},
	{"Deleted", testSearchDeleted},
	{"Window", testSearchWindow},
	{"HostileQueries", testSearchHostile},
}

// searchable is db when its build can search conversations; the test is
// skipped when it cannot (SQLite without FTS5).
func searchable(t *testing.T, db Store) Store {
	t.Helper()
	_, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: "x"})
	if errors.Is(err, store.ErrNoMessageIndex) {
		t.Skipf("searching conversations is off: %v", err)
	}
	if err != nil {
		t.Fatalf("SearchMessages: %v", err)
	}
	return db
}

// search runs q and returns the texts of the hits' snippets, in order.
func search(t *testing.T, db Store, q store.MessageSearch) []string {
	t.Helper()
	hits, err := db.SearchMessages(t.Context(), q)
	if err != nil {
		t.Fatalf("SearchMessages(%+v): %v", q, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, snippetText(h.Snippet))
	}
	return out
}

func snippetText(parts []store.SnippetPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// marked is a snippet's matched pieces.
func marked(parts []store.SnippetPart) []string {
	var out []string
	for _, p := range parts {
		if p.Match {
			out = append(out, p.Text)
		}
	}
	return out
}

func appendTo(t *testing.T, db Store, sid string, msgs ...llm.Message) {
	t.Helper()
	if err := db.AppendMessages(t.Context(), sid, msgs...); err != nil {
		t.Fatal(err)
	}
}

func user(text string) llm.Message      { return llm.Message{Role: llm.RoleUser, Text: text} }
func assistant(text string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Text: text} }

// testSearchLanguages: English words whatever their case, Chinese and
// Japanese words inside longer runs, a single CJK character; each found
// by the message holding it, and marked in the snippet.
func testSearchLanguages(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	searchable(t, db)
	sid := newSession(t, db, slackThread)
	appendTo(t, db, sid,
		user("How do I rotate the Deploy key for staging?"),
		assistant("Rotate it from the vault: run `vault rotate deploy_key`."),
		user("申领设备的流程是什么"),
		assistant("東京の会議室を予約しました"),
		user("nothing to see here"),
	)
	for _, db := range []Store{db, reopen()} {
		for _, tc := range []struct {
			query string
			want  []string // the snippets, best first
			marks []string // the first hit's marked words
		}{
			{"deploy", []string{"How do I rotate the Deploy key for staging?"}, []string{"Deploy"}},
			{"DEPLOY_KEY", []string{"Rotate it from the vault: run `vault rotate deploy_key`."}, []string{"deploy_key"}},
			{"设备", []string{"申领设备的流程是什么"}, []string{"设备"}},
			{"流程", []string{"申领设备的流程是什么"}, []string{"流程"}},
			{"设", []string{"申领设备的流程是什么"}, []string{"设"}},
			{"会議室", []string{"東京の会議室を予約しました"}, []string{"会議室"}},
			{"absent", nil, nil},
		} {
			hits, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: tc.query})
			if err != nil {
				t.Fatalf("%q: %v", tc.query, err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, snippetText(h.Snippet))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%q found %q, want %q", tc.query, got, tc.want)
				continue
			}
			if len(hits) > 0 && !slices.Equal(marked(hits[0].Snippet), tc.marks) {
				t.Errorf("%q marked %q, want %q", tc.query, marked(hits[0].Snippet), tc.marks)
			}
		}
	}
	// "rotate" is in both English messages, "vault" in one: the message
	// holding both words first, the other after it.
	if got := search(t, db, store.MessageSearch{Query: "vault rotate"}); len(got) != 2 || !strings.HasPrefix(got[0], "Rotate it") {
		t.Errorf("vault rotate ranked %q", got)
	}
}

// testSearchWhatIsIndexed: tool results, tool calls' arguments and the
// preamble are not what people wrote, and are not found.
func testSearchWhatIsIndexed(t *testing.T, s suite) {
	db := searchable(t, s.fresh(t))
	sid := newSession(t, db, slackThread)
	appendTo(t, db, sid,
		llm.Message{Role: llm.RoleUser, Text: "look up the weather", Preamble: "sent at zanzibar time"},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_fetch", Arguments: []byte(`{"url":"quagga"}`)}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "web_fetch", Text: "platypus forecast"},
	)
	for _, q := range []string{"zanzibar", "quagga", "platypus", "web_fetch"} {
		if got := search(t, db, store.MessageSearch{Query: q}); len(got) != 0 {
			t.Errorf("%q found %q", q, got)
		}
	}
	if got := search(t, db, store.MessageSearch{Query: "weather"}); len(got) != 1 {
		t.Errorf("weather found %q", got)
	}
}

// testSearchHit: a hit says its conversation, where it is, its place in
// the transcript, when, and who wrote it.
func testSearchHit(t *testing.T, s suite) {
	c := newClock(epoch)
	db, _ := s.open(t, Options{Now: c.Now})
	searchable(t, db)
	sid := newSession(t, db, slackThread)
	c.Set(epoch.Add(time.Hour))
	appendTo(t, db, sid,
		llm.Message{Role: llm.RoleUser, Text: "where is the invoice", Author: "Ada", Key: "slack:T01:C01:1.1"},
		assistant("The invoice is in the shared drive."),
	)
	if err := db.RecordRun(t.Context(), evolve.Run{Scope: "slack:T01", SessionID: sid, Author: "slack:U01", Key: "slack:T01:C01:1.1", At: epoch}); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: "invoice"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	slices.SortFunc(hits, func(a, b store.MessageHit) int { return a.Position - b.Position })
	for i, want := range []store.MessageHit{
		{SessionID: sid, Thread: slackThread, Position: 1, At: epoch.Add(time.Hour), Role: llm.RoleUser, AuthorKey: "slack:U01", AuthorName: "Ada"},
		{SessionID: sid, Thread: slackThread, Position: 2, At: epoch.Add(time.Hour), Role: llm.RoleAssistant},
	} {
		h := hits[i]
		if h.SessionID != want.SessionID || h.Thread != want.Thread || h.Position != want.Position || !h.At.Equal(want.At) ||
			h.Role != want.Role || h.AuthorKey != want.AuthorKey || h.AuthorName != want.AuthorName || h.MessageID == 0 {
			t.Errorf("hit %d: %+v, want %+v", i, h, want)
		}
	}
	if hits[0].MessageID >= hits[1].MessageID {
		t.Errorf("message ids %d, %d: want in transcript order", hits[0].MessageID, hits[1].MessageID)
	}
}

// testSearchPerson: a person finds what is in the conversations they took
// part in or started, never another's; an admin ("") finds all.
func testSearchPerson(t *testing.T, s suite) {
	db := searchable(t, s.fresh(t))
	ctx := t.Context()
	mine := newSession(t, db, slackDM)
	started := newSession(t, db, slackThread)
	theirs := newSession(t, db, tgPrivate)
	appendTo(t, db, mine, user("secret plan alpha"))
	appendTo(t, db, started, user("secret plan beta"))
	appendTo(t, db, theirs, user("secret plan gamma"))
	if err := db.Set(ctx, "starter:"+started, "slack:U01"); err != nil {
		t.Fatal(err)
	}
	for _, run := range []evolve.Run{
		{Scope: "slack:T01", SessionID: mine, Author: "slack:U01", Key: "k1", At: epoch},
		{Scope: "person:telegram:42", SessionID: theirs, Author: "telegram:42", Key: "k2", At: epoch},
	} {
		if err := db.RecordRun(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		who  string
		want []string
	}{
		{"slack:U01", []string{"secret plan alpha", "secret plan beta"}},
		{"telegram:42", []string{"secret plan gamma"}},
		{"slack:U99", nil},
		{"", []string{"secret plan alpha", "secret plan beta", "secret plan gamma"}},
	} {
		got := search(t, db, store.MessageSearch{Query: "secret plan", User: tc.who})
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q found %q, want %q", tc.who, got, tc.want)
		}
	}
}

// testSearchFilters: places, a time, and pages.
func testSearchFilters(t *testing.T, s suite) {
	c := newClock(epoch)
	db, _ := s.open(t, Options{Now: c.Now})
	searchable(t, db)
	for i, th := range []struct {
		sid  string
		text string
	}{
		{newSession(t, db, slackThread), "report one"},
		{newSession(t, db, slackDM), "report two"},
		{newSession(t, db, tgTopic), "report three"},
		{newSession(t, db, discord), "report four"},
	} {
		c.Set(epoch.Add(time.Duration(i) * time.Hour))
		appendTo(t, db, th.sid, user(th.text))
	}
	for _, tc := range []struct {
		name string
		q    store.MessageSearch
		want []string
	}{
		{"a workspace", store.MessageSearch{Places: []store.Place{{Platform: "slack", Space: "T01"}}}, []string{"report one", "report two"}},
		{"a channel", store.MessageSearch{Places: []store.Place{{Platform: "slack", Space: "T01", Chat: "C01"}}}, []string{"report one"}},
		{"two places", store.MessageSearch{Places: []store.Place{{Platform: "telegram", Chat: "-100123"}, {Platform: "discord"}}}, []string{"report four", "report three"}},
		{"another workspace", store.MessageSearch{Places: []store.Place{{Platform: "slack", Space: "T02"}}}, nil},
		{"since", store.MessageSearch{Since: epoch.Add(2 * time.Hour)}, []string{"report four", "report three"}},
		{"a page", store.MessageSearch{Limit: 3}, nil},
		{"the next page", store.MessageSearch{Limit: 3, Offset: 3}, nil},
	} {
		tc.q.Query = "report"
		got := search(t, db, tc.q)
		switch tc.name {
		case "a page":
			if len(got) != 3 {
				t.Errorf("%s: %q", tc.name, got)
			}
			continue
		case "the next page":
			if len(got) != 1 {
				t.Errorf("%s: %q", tc.name, got)
			}
			continue
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// The pages together are every hit once, in the order of one search.
	all := search(t, db, store.MessageSearch{Query: "report"})
	paged := append(search(t, db, store.MessageSearch{Query: "report", Limit: 2}), search(t, db, store.MessageSearch{Query: "report", Limit: 2, Offset: 2})...)
	if !slices.Equal(all, paged) {
		t.Errorf("pages %q, one search %q", paged, all)
	}
}

// testSearchDeleted: a compaction's rewrite takes the old messages out of
// the index and puts the new ones in, before and after a restart.
func testSearchDeleted(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	searchable(t, db)
	sid := newSession(t, db, slackThread)
	other := newSession(t, db, slackDM)
	appendTo(t, db, sid, user("my passport number is wombat"), assistant("noted, wombat"))
	appendTo(t, db, other, user("wombat elsewhere"))
	if err := db.ReplaceMessages(t.Context(), sid, []llm.Message{assistant("summary: travel documents")}); err != nil {
		t.Fatal(err)
	}
	for _, db := range []Store{db, reopen()} {
		if got := search(t, db, store.MessageSearch{Query: "wombat"}); !slices.Equal(got, []string{"wombat elsewhere"}) {
			t.Errorf("wombat found %q after the rewrite", got)
		}
		if got := search(t, db, store.MessageSearch{Query: "travel"}); !slices.Equal(got, []string{"summary: travel documents"}) {
			t.Errorf("travel found %q", got)
		}
	}
}

// testSearchHostile: whatever is typed, the search answers without an
// error; what holds no word finds nothing.
func testSearchHostile(t *testing.T, s suite) {
	db := searchable(t, s.fresh(t))
	sid := newSession(t, db, slackThread)
	appendTo(t, db, sid, user(`a "quoted" NEAR(x y) col:value and * or not`), user("设备 申领"))
	for _, q := range []string{
		"", " ", `"`, `""`, `"unterminated`, "*", "a*", "NEAR(", "NEAR(a b, 2)", "col:value", "body:x", "{body}: x",
		"AND OR NOT", "AND", "-x", "+x", "^x", "x OR", "(", ")", "'", `\`, "\x00", "设", "💥", strings.Repeat("a ", 500),
	} {
		if _, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: q}); err != nil {
			t.Errorf("SearchMessages(%q): %v", q, err)
		}
	}
	for _, q := range []string{"", " ", `"`, "*", "(", "💥"} {
		if got := search(t, db, store.MessageSearch{Query: q}); len(got) != 0 {
			t.Errorf("%q found %q", q, got)
		}
	}
	if got := search(t, db, store.MessageSearch{Query: "col:value"}); len(got) != 1 {
		t.Errorf("col:value, as words, found %q", got)
	}
}

// testSearchWindow: a word in more messages than SearchWindow ranks the
// newest of them only — an older message, however well it matches, is
// not among them — while a rarer word finds its messages however old.
func testSearchWindow(t *testing.T, s suite) {
	db := searchable(t, s.fresh(t))
	sid := newSession(t, db, slackThread)
	old := []llm.Message{user("common common common platypus")}
	for range store.SearchWindow + 10 {
		old = append(old, assistant("common"))
	}
	appendTo(t, db, sid, old...)
	hits, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: "common", Limit: store.SearchWindow + 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != store.SearchWindow {
		t.Errorf("common: %d hits, want the window's %d", len(hits), store.SearchWindow)
	}
	for _, h := range hits {
		if h.Position == 1 {
			t.Error("the oldest message, outside the window, was ranked")
		}
	}
	if got := search(t, db, store.MessageSearch{Query: "platypus"}); !slices.Equal(got, []string{"common common common platypus"}) {
		t.Errorf("platypus found %q", got)
	}
}
