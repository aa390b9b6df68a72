package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
)

var transcriptTests = []test{
	{"RoundTrip", testTranscriptRoundTrip},
	{"EmptyAndUnknownSessions", testMessagesOfEmptyAndUnknownSessions},
	{"Separate", testTranscriptsAreSeparate},
	{"AppendConcurrent", testAppendMessagesConcurrent},
	{"Replace", testReplaceMessages},
}

// everyShape is a transcript using every llm.Message field, including the
// awkward ones: arguments with whitespace (marshalling a json.RawMessage
// would compact it), invalid JSON (which one cannot marshal at all), bytes
// that are not UTF-8, and no arguments.
var everyShape = []llm.Message{
	{Role: llm.RoleUser, Text: "Deploy the docs, please 🚀", Author: "Ada (slack:U01)"},
	{Role: llm.RoleUser, Text: "同じく、お願いします", Author: "Kenji"},
	{Role: llm.RoleAssistant, Text: "On it.", ToolCalls: []llm.ToolCall{
		{ID: "call_1", Name: "shell", Arguments: json.RawMessage(`{ "cmd": "make docs",  "timeout": 30 }`)},
		{ID: "call_2", Name: "web_fetch", Arguments: json.RawMessage(`{"url": "https://exa`)},
		{ID: "call_3", Name: "weird", Arguments: json.RawMessage("\xff\xfe{}")},
		{ID: "call_4", Name: "no_args"},
	}},
	{Role: llm.RoleTool, ToolCallID: "call_1", ToolName: "shell", Text: "built 42 pages"},
	{Role: llm.RoleTool, ToolCallID: "call_2", ToolName: "web_fetch", Text: "invalid arguments: unexpected end of JSON input", IsError: true},
	{Role: llm.RoleTool, ToolCallID: "call_3", ToolName: "weird", Text: "", IsError: true},
	{Role: llm.RoleTool, ToolCallID: "call_4", ToolName: "no_args", Text: "ok"},
	{Role: llm.RoleAssistant, Text: "Done: https://docs.example.com\n\n```\nmake docs\n```"},
	{Role: llm.RoleAssistant},
}

func testTranscriptRoundTrip(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	id := newSession(t, db, slackThread)
	// In two appends, to check that order holds across calls.
	if err := db.AppendMessages(ctx, id, everyShape[:3]...); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(ctx, id, everyShape[3:]...); err != nil {
		t.Fatal(err)
	}
	for _, db := range []Store{db, reopen()} { // and after a reopen
		got, err := db.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(everyShape, got); diff != "" {
			t.Errorf("transcript changed in storage (-stored +loaded):\n%s", diff)
		}
	}
}

func testMessagesOfEmptyAndUnknownSessions(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	id := newSession(t, db, slackThread)
	if msgs, err := db.Messages(ctx, id); err != nil || len(msgs) != 0 {
		t.Errorf("Messages of a new session = %v, %v; want none, no error", msgs, err)
	}
	if _, err := db.Messages(ctx, "missing"); !s.notFound(err) {
		t.Errorf("Messages(missing) error = %v, want not found", err)
	}
	err := db.AppendMessages(ctx, "missing", llm.Message{Role: llm.RoleUser, Text: "hi"})
	if !s.notFound(err) {
		t.Errorf("AppendMessages(missing) error = %v, want not found", err)
	}
	if err := db.AppendMessages(ctx, id); err != nil {
		t.Errorf("appending nothing: %v", err)
	}
}

func testTranscriptsAreSeparate(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	a, b := newSession(t, db, slackThread), newSession(t, db, tgTopic)
	for i := range 3 {
		if err := db.AppendMessages(ctx, a, llm.Message{Role: llm.RoleUser, Text: fmt.Sprint("a", i)}); err != nil {
			t.Fatal(err)
		}
		if err := db.AppendMessages(ctx, b, llm.Message{Role: llm.RoleUser, Text: fmt.Sprint("b", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for id, prefix := range map[string]string{a: "a", b: "b"} {
		msgs, err := db.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 3 {
			t.Errorf("session %s has %d messages, want 3", prefix, len(msgs))
		}
		for i, m := range msgs {
			if want := fmt.Sprint(prefix, i); m.Text != want {
				t.Errorf("session %s message %d = %q, want %q", prefix, i, m.Text, want)
			}
		}
	}
}

// testAppendMessagesConcurrent: appends from many goroutines, on two
// handles, all land, and each batch stays contiguous and in order.
func testAppendMessagesConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	ctx := t.Context()
	id := newSession(t, db, discord)
	const writers, batches = 10, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				call := fmt.Sprintf("w%d-b%d", w, b)
				err := dbs[w%2].AppendMessages(ctx, id,
					llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: call, Name: "t", Arguments: json.RawMessage(`{}`)}}},
					llm.Message{Role: llm.RoleTool, ToolCallID: call, ToolName: "t", Text: "ok"},
				)
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()

	msgs, err := db.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2*writers*batches {
		t.Fatalf("%d messages, want %d", len(msgs), 2*writers*batches)
	}
	next := make(map[int]int) // writer → next batch expected
	for i := 0; i < len(msgs); i += 2 {
		call, result := msgs[i], msgs[i+1]
		if call.Role != llm.RoleAssistant || result.ToolCallID != call.ToolCalls[0].ID {
			t.Fatalf("messages %d, %d: a batch was split: %+v, %+v", i, i+1, call, result)
		}
		var w, b int
		fmt.Sscanf(call.ToolCalls[0].ID, "w%d-b%d", &w, &b)
		if b != next[w] {
			t.Errorf("writer %d: batch %d stored where %d was due", w, b, next[w])
		}
		next[w] = b + 1
	}
}

func testReplaceMessages(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	sid := newSession(t, db, chat.Thread{Platform: "console", Chat: "ana"})
	old := []llm.Message{{Role: llm.RoleUser, Text: "one"}, {Role: llm.RoleAssistant, Text: "two"}, {Role: llm.RoleUser, Text: "three"}}
	if err := db.AppendMessages(ctx, sid, old...); err != nil {
		t.Fatal(err)
	}
	summary := []llm.Message{{Role: llm.RoleUser, Text: "summary"}, {Role: llm.RoleAssistant, Text: "ok"}, old[2]}
	if err := db.ReplaceMessages(ctx, sid, summary); err != nil {
		t.Fatal(err)
	}
	got, err := db.Messages(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(summary, got); diff != "" {
		t.Fatalf("after replace (-want +got):\n%s", diff)
	}
	// Appends continue after the rewritten transcript.
	if err := db.AppendMessages(ctx, sid, llm.Message{Role: llm.RoleAssistant, Text: "four"}); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.Messages(ctx, sid); len(got) != 4 || got[3].Text != "four" {
		t.Fatalf("append after replace: %+v", got)
	}
	if err := db.ReplaceMessages(ctx, "no-such-session", summary); !s.notFound(err) {
		t.Fatalf("unknown session: %v", err)
	}
}
