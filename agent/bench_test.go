package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// memStore keeps sessions and memory in maps.
type memStore struct {
	mu       sync.Mutex
	sessions map[string][]llm.Message
	memory   Memory
}

func (s *memStore) Messages(_ context.Context, id string) ([]llm.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Message(nil), s.sessions[id]...), nil
}

func (s *memStore) AppendMessages(_ context.Context, id string, msgs ...llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[id] = append(s.sessions[id], msgs...)
	return nil
}

func (s *memStore) ReplaceMessages(_ context.Context, id string, msgs []llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[id] = msgs
	return nil
}

func (s *memStore) Memory(context.Context, string) (Memory, error) { return s.memory, nil }

func (s *memStore) EditMemory(_ context.Context, _ string, _ MemoryTarget, edit func([]string) ([]string, error)) error {
	_, err := edit(nil)
	return err
}

func benchPrompt() PromptInput {
	return PromptInput{
		Place:  Place{Platform: "slack", ChatName: "#eng", ChatKind: "channel", Thread: "1700000000.0001", Others: []string{"bo", "cy"}},
		User:   Caller{UserName: "ana"},
		Memory: Memory{Profile: []string{"prefers Go", "works in Berlin", "likes short answers"}, Facts: []string{"deploys happen on Tuesdays", "the staging DB is read-only on Fridays", "use table tests"}},
		Tools:  []string{"memory", "web_fetch", "shell"},
	}
}

func BenchmarkSystemPrompt(b *testing.B) {
	in := benchPrompt()
	b.ReportAllocs()
	for b.Loop() {
		SystemPrompt(in)
	}
}

func benchRunner(b *testing.B, script []llm.Response, tools ...Tool) (*Runner, *memStore) {
	b.Helper()
	st := &memStore{sessions: map[string][]llm.Message{}, memory: benchPrompt().Memory}
	return &Runner{RunnerConfig: RunnerConfig{
		Provider:      llmtest.NewInstant(script...),
		Sessions:      st,
		Memory:        st,
		Tools:         tools,
		ContextWindow: 128000,
		Now:           func() time.Time { return time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) },
	}}, st
}

// BenchmarkRunTextTurn is one loop iteration: prompt, a streamed 20-word
// answer, persistence, done.
func BenchmarkRunTextTurn(b *testing.B) {
	r, st := benchRunner(b, []llm.Response{{Text: strings.Repeat("word ", 20), StopReason: llm.StopEnd}})
	turn := Turn{SessionID: "s", Caller: Caller{UserKey: "slack:U1", UserName: "ana"}, Text: "hello"}
	b.ReportAllocs()
	for b.Loop() {
		st.sessions["s"] = st.sessions["s"][:0] // a fresh session each time
		if _, err := r.RunSync(b.Context(), turn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunToolTurn adds a validated tool call and a second model call.
func BenchmarkRunToolTurn(b *testing.B) {
	type args struct {
		Query string `json:"query"`
	}
	echo, err := Func("echo", "echo", func(_ context.Context, _ Caller, a args) (string, error) { return a.Query, nil })
	if err != nil {
		b.Fatal(err)
	}
	r, st := benchRunner(b, []llm.Response{
		{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"query":"status"}`)}}, StopReason: llm.StopToolUse},
		{Text: "all good", StopReason: llm.StopEnd},
	}, echo)
	turn := Turn{SessionID: "s", Caller: Caller{UserKey: "slack:U1", UserName: "ana"}, Text: "status?"}
	b.ReportAllocs()
	for b.Loop() {
		st.sessions["s"] = st.sessions["s"][:0]
		if _, err := r.RunSync(b.Context(), turn); err != nil {
			b.Fatal(err)
		}
	}
}
