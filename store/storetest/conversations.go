package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/store"
)

// Reading conversations whole for an operator (parley export): the list of
// sessions and one transcript with times and authors.

var conversationTests = []test{
	{"List", testConversationsList},
	{"ListFilters", testConversationsListFilters},
	{"Transcript", testConversationTranscript},
	{"TranscriptEmptyAndUnknown", testConversationTranscriptEmptyAndUnknown},
}

// conversationReader is what parley export reads (cmd/parley/export.go).
type conversationReader interface {
	Conversations(ctx context.Context, f store.ConversationFilter) ([]store.Conversation, error)
	Transcript(ctx context.Context, sessionID string) ([]store.TranscriptEntry, error)
}

// conversations is db's conversationReader; the engine must offer it.
func conversations(t *testing.T, db Store) conversationReader {
	t.Helper()
	r, ok := db.(conversationReader)
	if !ok {
		t.Fatalf("%T does not read conversations (Conversations, Transcript)", db)
	}
	return r
}

// ids are the ids of cs, in order.
func ids(cs []store.Conversation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// testConversationsList: every session, the most recently active first,
// with its thread, times, size, starter and, for a task's helper, its
// parent.
func testConversationsList(t *testing.T, s suite) {
	c := newClock(epoch)
	db, reopen := s.open(t, Options{Now: c.Now})
	ctx := t.Context()
	r := conversations(t, db)
	if got, err := r.Conversations(ctx, store.ConversationFilter{}); err != nil || len(got) != 0 {
		t.Fatalf("an empty store lists %v, %v", got, err)
	}
	s1 := newSession(t, db, slackThread) // at epoch
	c.Set(epoch.Add(time.Minute))
	s2 := newSession(t, db, tgPrivate)
	c.Set(epoch.Add(2 * time.Minute))
	s3 := newSession(t, db, discord)
	// s1 is written to last: it comes first. s2 and s3 tie on their last
	// activity and come by id.
	c.Set(epoch.Add(3 * time.Minute))
	if err := db.AppendMessages(ctx, s3, llm.Message{Role: llm.RoleUser, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	c.Set(epoch.Add(5 * time.Minute))
	if err := db.AppendMessages(ctx, s2, llm.Message{Role: llm.RoleUser, Text: "a"}, llm.Message{Role: llm.RoleAssistant, Text: "b"}); err != nil {
		t.Fatal(err)
	}
	c.Set(epoch.Add(3 * time.Minute))
	if err := db.AppendMessages(ctx, s2, llm.Message{Role: llm.RoleUser, Text: "c"}); err != nil {
		t.Fatal(err)
	}
	c.Set(epoch.Add(9 * time.Minute))
	if err := db.AppendMessages(ctx, s1, llm.Message{Role: llm.RoleUser, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Set(ctx, "starter:"+s1, "slack:U01"); err != nil { // as the router notes it
		t.Fatal(err)
	}
	c.Set(epoch.Add(time.Second))
	h, err := db.AddHelper(ctx, task.Helper{Parent: s1, Item: 1, ItemText: "read", Instruction: "read", Status: task.HelperPending})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Conversation{
		{SessionInfo: store.SessionInfo{ID: s1, Thread: slackThread, CreatedAt: epoch, UpdatedAt: epoch.Add(9 * time.Minute), Messages: 1}, Starter: "slack:U01"},
		{SessionInfo: store.SessionInfo{ID: s2, Thread: tgPrivate, CreatedAt: epoch.Add(time.Minute), UpdatedAt: epoch.Add(3 * time.Minute), Messages: 3}},
		{SessionInfo: store.SessionInfo{ID: s3, Thread: discord, CreatedAt: epoch.Add(2 * time.Minute), UpdatedAt: epoch.Add(3 * time.Minute), Messages: 1}},
		{SessionInfo: store.SessionInfo{ID: h.Session, Thread: slackThread, CreatedAt: epoch.Add(time.Second), UpdatedAt: epoch.Add(time.Second)}, HelperOf: s1},
	}
	if s2 > s3 { // ids tie-break: whatever the engine's ids, by id
		want[1], want[2] = want[2], want[1]
	}
	for _, db := range []Store{db, reopen()} {
		got, err := conversations(t, db).Conversations(ctx, store.ConversationFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("conversations (-want +got):\n%s", diff)
		}
	}
	if got, err := r.Conversations(ctx, store.ConversationFilter{Limit: 2}); err != nil || !cmp.Equal(ids(got), ids(want[:2])) {
		t.Errorf("the newest 2: %v, %v; want %v", ids(got), err, ids(want[:2]))
	}
	// A page further on (the console's ?page=N): the ties by id too.
	for _, tc := range []struct {
		f    store.ConversationFilter
		want []store.Conversation
	}{
		{store.ConversationFilter{Limit: 2, Offset: 1}, want[1:3]},
		{store.ConversationFilter{Limit: 2, Offset: 2}, want[2:4]},
		{store.ConversationFilter{Offset: 3}, want[3:]},
		{store.ConversationFilter{Limit: 2, Offset: 4}, nil},
		{store.ConversationFilter{Limit: 1, Offset: -1}, want[:1]},
	} {
		got, err := r.Conversations(ctx, tc.f)
		if err != nil {
			t.Fatalf("%+v: %v", tc.f, err)
		}
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.f, diff)
		}
	}
}

// testConversationsListFilters: by id prefix, and by a person: those they
// started and those with a turn of theirs on record, and no one else's.
func testConversationsListFilters(t *testing.T, s suite) {
	db := s.fresh(t) // ids s1, s2, …
	ctx := t.Context()
	r := conversations(t, db)
	s1 := newSession(t, db, slackThread)
	s2 := newSession(t, db, slackDM)
	s3 := newSession(t, db, tgTopic)
	if err := db.Set(ctx, "starter:"+s1, "slack:U01"); err != nil {
		t.Fatal(err)
	}
	for _, run := range []evolve.Run{
		{Scope: "slack:T01", SessionID: s2, Author: "slack:U01", Key: "k1", At: epoch},
		{Scope: "telegram:-100123", SessionID: s3, Author: "telegram:7", Key: "k2", At: epoch},
		{Scope: "slack:T01", SessionID: s1, Author: "slack:U02", Key: "k3", At: epoch}, // a turn in U01's thread
	} {
		if err := db.RecordRun(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		f    store.ConversationFilter
		want []string
	}{
		{"the one with the whole id", store.ConversationFilter{Prefix: s2}, []string{s2}},
		{"by a prefix", store.ConversationFilter{Prefix: s1[:len(s1)-1]}, []string{s3, s2, s1}},
		{"an unknown prefix", store.ConversationFilter{Prefix: "zz"}, nil},
		{"a prefix is not a pattern", store.ConversationFilter{Prefix: "%"}, nil},
		{"started or took part", store.ConversationFilter{User: "slack:U01"}, []string{s2, s1}},
		{"took part in another's thread", store.ConversationFilter{User: "slack:U02"}, []string{s1}},
		{"another platform", store.ConversationFilter{User: "telegram:7"}, []string{s3}},
		{"someone never seen", store.ConversationFilter{User: "slack:U99"}, nil},
		{"a person and a prefix", store.ConversationFilter{User: "slack:U01", Prefix: s1}, []string{s1}},
		{"a platform", store.ConversationFilter{Platform: "slack"}, []string{s2, s1}},
		{"a chat", store.ConversationFilter{Platform: "slack", Chat: "C01"}, []string{s1}},
		{"a chat on another platform", store.ConversationFilter{Platform: "telegram", Chat: "C01"}, nil},
		{"a chat, any platform", store.ConversationFilter{Chat: "-100123"}, []string{s3}},
		{"a place and a person", store.ConversationFilter{Platform: "slack", User: "slack:U01"}, []string{s2, s1}},
		{"a place the person was not in", store.ConversationFilter{Chat: "D01", User: "slack:U02"}, nil},
	} {
		got, err := r.Conversations(ctx, tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		// The sessions were created a tick apart: the newest first.
		if !cmp.Equal(ids(got), tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, ids(got), tc.want)
		}
	}
}

// testConversationTranscript: the messages in order, each with when it
// was stored; a person's message names its author where their turn is on
// record, and only a person's; pictures come without their bytes.
func testConversationTranscript(t *testing.T, s suite) {
	c := newClock(epoch)
	db, reopen := s.open(t, Options{Now: c.Now})
	ctx := t.Context()
	sid := newSession(t, db, slackThread)
	shot, _ := pictures()
	first := []llm.Message{
		{Role: llm.RoleUser, Text: "look", Author: "Ada", Key: "slack:T01:C01:1.1", Images: []llm.Image{shot}},
		{Role: llm.RoleAssistant, Text: "checking", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_search", Arguments: []byte(`{"q":"x"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "web_search", Text: "found", Key: "slack:T01:C01:1.1"},
	}
	c.Set(epoch.Add(time.Minute))
	if err := db.AppendMessages(ctx, sid, first...); err != nil {
		t.Fatal(err)
	}
	second := []llm.Message{
		{Role: llm.RoleUser, Text: "and this", Author: "Kenji", Key: "slack:T01:C01:1.2"}, // a follow-up: no turn of its own
		{Role: llm.RoleAssistant, Text: "done", Model: "openai/gpt-x"},
	}
	c.Set(epoch.Add(2 * time.Minute))
	if err := db.AppendMessages(ctx, sid, second...); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordRun(ctx, evolve.Run{Scope: "slack:T01", SessionID: sid, Author: "slack:U01", Key: "slack:T01:C01:1.1", At: epoch}); err != nil {
		t.Fatal(err)
	}
	// The same key in another session names no one here.
	if err := db.RecordRun(ctx, evolve.Run{Scope: "slack:T01", SessionID: "other", Author: "slack:U02", Key: "slack:T01:C01:1.2", At: epoch}); err != nil {
		t.Fatal(err)
	}
	light := shot
	light.Data = nil
	want := []store.TranscriptEntry{
		{Message: first[0], At: epoch.Add(time.Minute), AuthorKey: "slack:U01"},
		{Message: first[1], At: epoch.Add(time.Minute)},
		{Message: first[2], At: epoch.Add(time.Minute)},
		{Message: second[0], At: epoch.Add(2 * time.Minute)},
		{Message: second[1], At: epoch.Add(2 * time.Minute)},
	}
	want[0].Images = []llm.Image{light}
	for _, db := range []Store{db, reopen()} {
		got, err := conversations(t, db).Transcript(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("transcript (-want +got):\n%s", diff)
		}
	}
}

func testConversationTranscriptEmptyAndUnknown(t *testing.T, s suite) {
	db := s.fresh(t)
	r := conversations(t, db)
	sid := newSession(t, db, slackDM)
	if got, err := r.Transcript(t.Context(), sid); err != nil || len(got) != 0 {
		t.Errorf("an empty session: %v, %v", got, err)
	}
	if _, err := r.Transcript(t.Context(), "nope"); !s.notFound(err) {
		t.Errorf("an unknown session: %v, want not found", err)
	}
}
