package agent

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
)

func call(id string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: "t", Arguments: json.RawMessage(`{}`)}
}

func result(id, text string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Text: text}
}

func interrupted(id string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "t", Text: InterruptedResult, IsError: true}
}

func TestHeal(t *testing.T) {
	user := llm.Message{Role: llm.RoleUser, Text: "hi"}
	asst := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, call(id))
		}
		return m
	}
	tests := []struct {
		name string
		in   []llm.Message
		want []llm.Message
	}{
		{"clean", []llm.Message{user, asst("a"), result("a", "ok")}, []llm.Message{user, asst("a"), result("a", "ok")}},
		{"orphan call at end (crash mid-tool)", []llm.Message{user, asst("a", "b"), result("a", "ok")},
			[]llm.Message{user, asst("a", "b"), result("a", "ok"), interrupted("b")}},
		{"orphan call followed by user", []llm.Message{user, asst("a"), user}, []llm.Message{user, asst("a"), interrupted("a"), user}},
		{"results out of order", []llm.Message{asst("a", "b"), result("b", "2"), result("a", "1")},
			[]llm.Message{asst("a", "b"), result("a", "1"), result("b", "2")}},
		{"orphan result dropped", []llm.Message{user, result("x", "?"), asst()}, []llm.Message{user, asst()}},
		{"result for another call dropped", []llm.Message{asst("a"), result("z", "?"), result("a", "ok")}, []llm.Message{asst("a"), result("a", "ok")}},
		{"duplicate result dropped", []llm.Message{asst("a"), result("a", "1"), result("a", "2")}, []llm.Message{asst("a"), result("a", "1")}},
		{"empty", nil, []llm.Message{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Heal(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("Heal (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzHeal checks the invariants on arbitrary transcripts: every call is
// followed by exactly its results in declared order, no result is orphaned,
// and healing twice equals healing once.
func FuzzHeal(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 4})
	f.Add([]byte{2, 2, 9, 9, 1, 3})
	f.Fuzz(func(t *testing.T, script []byte) {
		msgs := transcriptFrom(script)
		once := Heal(msgs)
		checkPaired(t, once)
		if diff := cmp.Diff(once, Heal(once)); diff != "" {
			t.Fatalf("Heal is not idempotent (-once +twice):\n%s", diff)
		}
	})
}

// transcriptFrom turns bytes into a transcript: each byte picks a role and
// small call/result ids, so the fuzzer explores orderings cheaply.
func transcriptFrom(script []byte) []llm.Message {
	var msgs []llm.Message
	for i, b := range script {
		switch b % 4 {
		case 0:
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: fmt.Sprint(i)})
		case 1:
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Text: "x"})
		case 2:
			m := llm.Message{Role: llm.RoleAssistant}
			for j := range int(b/4%3) + 1 {
				m.ToolCalls = append(m.ToolCalls, call(fmt.Sprint((int(b)+j)%5)))
			}
			msgs = append(msgs, m)
		case 3:
			msgs = append(msgs, result(fmt.Sprint(int(b/4)%5), "r"))
		}
	}
	return msgs
}

func checkPaired(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleTool {
			t.Fatalf("message %d: tool result %q follows no call", i, m.ToolCallID)
		}
		for _, c := range m.ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != llm.RoleTool || msgs[i].ToolCallID != c.ID {
				t.Fatalf("call %q is not followed by its result", c.ID)
			}
		}
	}
}
