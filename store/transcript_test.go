package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

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

func TestTranscriptRoundTrip(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	ctx := t.Context()
	id, err := db.SessionFor(ctx, slackThread)
	if err != nil {
		t.Fatal(err)
	}
	// In two appends, to check that order holds across calls.
	if err := db.AppendMessages(ctx, id, everyShape[:3]...); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(ctx, id, everyShape[3:]...); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*store.DB{db, openDB(t, path)} { // and after a reopen
		got, err := db.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(everyShape, got); diff != "" {
			t.Errorf("transcript changed in storage (-stored +loaded):\n%s", diff)
		}
	}
}

func TestMessagesOfEmptyAndUnknownSessions(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	id, err := db.SessionFor(ctx, slackThread)
	if err != nil {
		t.Fatal(err)
	}
	if msgs, err := db.Messages(ctx, id); err != nil || len(msgs) != 0 {
		t.Errorf("Messages of a new session = %v, %v; want none, no error", msgs, err)
	}
	if _, err := db.Messages(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Messages(missing) error = %v, want ErrNotFound", err)
	}
	err = db.AppendMessages(ctx, "missing", llm.Message{Role: llm.RoleUser, Text: "hi"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AppendMessages(missing) error = %v, want ErrNotFound", err)
	}
	if err := db.AppendMessages(ctx, id); err != nil {
		t.Errorf("appending nothing: %v", err)
	}
}

func TestTranscriptsAreSeparate(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	a, _ := db.SessionFor(ctx, slackThread)
	b, _ := db.SessionFor(ctx, tgTopic)
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
		for i, m := range msgs {
			if want := fmt.Sprint(prefix, i); m.Text != want {
				t.Errorf("session %s message %d = %q, want %q", prefix, i, m.Text, want)
			}
		}
	}
}

// TestAppendMessagesConcurrent: appends from many goroutines all land, and
// each batch stays contiguous and in order.
func TestAppendMessagesConcurrent(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	id, err := db.SessionFor(ctx, discord)
	if err != nil {
		t.Fatal(err)
	}
	const writers, batches = 10, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				call := fmt.Sprintf("w%d-b%d", w, b)
				err := db.AppendMessages(ctx, id,
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

func TestReplaceMessages(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	sid, err := db.SessionFor(ctx, bot.Thread{Platform: "console", Chat: "ana"})
	if err != nil {
		t.Fatal(err)
	}
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
	if err := db.ReplaceMessages(ctx, "no-such-session", summary); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
