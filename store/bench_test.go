package store_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
)

// turn returns a realistic slice of transcript: a user message, an
// assistant tool call, its result and the answer (about 1.5 KB of JSON).
func turn(i int) []llm.Message {
	call := fmt.Sprintf("call_%d", i)
	return []llm.Message{
		{Role: llm.RoleUser, Author: "Ada", Text: fmt.Sprintf("question %d: %s", i, strings.Repeat("how do I deploy this? ", 8))},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: call, Name: "shell", Arguments: json.RawMessage(`{"cmd": "make deploy --dry-run", "timeout": 60}`)}}},
		{Role: llm.RoleTool, ToolCallID: call, ToolName: "shell", Text: strings.Repeat("step ok\n", 60)},
		{Role: llm.RoleAssistant, Text: strings.Repeat("Here is what the dry run says. ", 12)},
	}
}

func BenchmarkAppendMessages(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			db := newDB(b)
			id, err := db.SessionFor(b.Context(), slackThread)
			if err != nil {
				b.Fatal(err)
			}
			msgs := turn(0)[:n]
			b.ReportAllocs()
			for b.Loop() {
				if err := db.AppendMessages(b.Context(), id, msgs...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMessages(b *testing.B) {
	db := newDB(b)
	id, err := db.SessionFor(b.Context(), slackThread)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 25 { // 100 messages
		if err := db.AppendMessages(b.Context(), id, turn(i)...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		msgs, err := db.Messages(b.Context(), id)
		if err != nil || len(msgs) != 100 {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
}

func BenchmarkEditMemory(b *testing.B) {
	const size = 20 // entries in the list being edited
	setup := func(b *testing.B) *store.DB {
		db := newDB(b)
		for i := range size {
			err := db.EditMemory(b.Context(), "slack:U01", agent.Facts, add(fmt.Sprintf("fact %02d: %s", i, strings.Repeat("x", 60))))
			if err != nil {
				b.Fatal(err)
			}
		}
		return db
	}
	b.Run("replace", func(b *testing.B) {
		db := setup(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			err := db.EditMemory(b.Context(), "slack:U01", agent.Facts, func(es []string) ([]string, error) {
				es[i%size] = fmt.Sprintf("fact %02d: revised %d", i%size, i)
				return es, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("add+remove", func(b *testing.B) {
		db := setup(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			// Alternate, so the list stays the same size.
			edit := add(fmt.Sprint("new ", i))
			if i%2 == 0 {
				edit = func(es []string) ([]string, error) { return es[:len(es)-1], nil }
			}
			if err := db.EditMemory(b.Context(), "slack:U01", agent.Facts, edit); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkMemory(b *testing.B) {
	db := newDB(b)
	for i := range 20 {
		for _, target := range []agent.MemoryTarget{agent.Profile, agent.Facts} {
			if err := db.EditMemory(b.Context(), "slack:U01", target, add(fmt.Sprintf("entry %d %s", i, strings.Repeat("y", 60)))); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Memory(b.Context(), "slack:U01"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSessionFor(b *testing.B) {
	db := newDB(b)
	if _, err := db.SessionFor(b.Context(), slackThread); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.SessionFor(b.Context(), slackThread); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAccept(b *testing.B) {
	db := newDB(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := db.Accept(b.Context(), fmt.Sprint("T01:C01:", i), "slack", nil); err != nil {
			b.Fatal(err)
		}
	}
}
