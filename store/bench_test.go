package store_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
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

// BenchmarkTurnEnd is the store's share of a turn's end: its message
// marked done alone (MarkDone, before the console's overview), and marked
// done with the turn counted in the same transaction (FinishTurn).
func BenchmarkTurnEnd(b *testing.B) {
	for _, name := range []string{"MarkDone", "FinishTurn"} {
		b.Run(name, func(b *testing.B) {
			db := newDB(b)
			ctx := b.Context()
			keys := make([]string, 0, 1<<16)
			for i := range cap(keys) {
				keys = append(keys, fmt.Sprint("T01:C01:", i))
				if _, err := db.Accept(ctx, keys[i], "slack", nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := keys[i%len(keys)]
				i++
				var err error
				if name == "MarkDone" {
					err = db.MarkDone(ctx, k)
				} else {
					err = db.FinishTurn(ctx, []string{k}, bot.TurnRecord{At: time.Now(), Outcome: bot.TurnAnswered, Latency: time.Duration(i%5000) * time.Millisecond})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// taskSession is a session on a fresh SQLite file, with a plan of n
// items ("step i of the release", each with note).
func taskSession(b *testing.B, n int, note string) (*store.DB, string, task.Plan) {
	db := newDB(b)
	id, err := db.SessionFor(b.Context(), slackThread)
	if err != nil {
		b.Fatal(err)
	}
	var p task.Plan
	for i := range n {
		p.Items = append(p.Items, task.Item{Text: fmt.Sprintf("step %d of the release", i+1), Status: task.Pending, Note: note})
	}
	return db, id, p
}

// BenchmarkTaskStep is the store's share of a task's step: the todo
// tool's SavePlan (a 5-item plan and its one log line, in a transaction)
// and the router's AppendLog of the step's tool call, on a SQLite file.
// docs/tasks.md quotes the figure.
func BenchmarkTaskStep(b *testing.B) {
	db, id, p := taskSession(b, 5, "")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Items[i%5].Status = task.Done
		if _, err := db.SavePlan(b.Context(), id, "slack:U1", p, []task.Entry{{At: now, Kind: "plan", Text: "item done"}}); err != nil {
			b.Fatal(err)
		}
		if err := db.AppendLog(b.Context(), id, task.Entry{At: now, Kind: "tool", Text: `shell {"command":"make test"} → ok: 42 passed`}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkTaskRead is the runner's read of the plan before each step
// (agent.Plans through task.Tasks): a 20-item plan.
func BenchmarkTaskRead(b *testing.B) {
	db, id, p := taskSession(b, 20, "a short note")
	if _, err := db.SavePlan(b.Context(), id, "slack:U1", p, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if k, ok, err := db.Task(b.Context(), id); err != nil || !ok || len(k.Plan.Items) != 20 {
			b.Fatalf("%v %v %+v", ok, err, k)
		}
	}
}
