package main

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// stubChats is a platform whose chats hold fixed bot messages, for tally.
type stubChats struct {
	platform // tally only reads botTexts
	texts    [][]string
}

func (s stubChats) botTexts(person int) []string { return s.texts[person] }

func TestTally(t *testing.T) {
	a := func(person, n int) string { return answer(token(person, n)) }
	tests := []struct {
		name           string
		texts          [][]string
		sent           []int
		wantDuplicates int
		wantUnexpected int
	}{
		{"all answered once", [][]string{{a(0, 0), a(0, 1)}, {a(1, 0), a(1, 1)}}, []int{2, 2}, 0, 0},
		{"one answered twice", [][]string{{a(0, 0), a(0, 0), a(0, 1)}}, []int{2}, 1, 0},
		{"an error notice instead of an answer", [][]string{{a(0, 0), "Sorry, something went wrong."}}, []int{2}, 0, 1},
		{"someone else's answer", [][]string{{a(1, 0)}}, []int{1}, 0, 1},
		{"an answer to a question never sent", [][]string{{a(0, 0), a(0, 1)}}, []int{1}, 1, 1},
		{"a partial answer left behind", [][]string{{"Answer to ", a(0, 0)}}, []int{1}, 1, 1},
		{"nothing answered", [][]string{nil}, []int{3}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			people := make([]personResult, len(tt.sent))
			for i, n := range tt.sent {
				people[i].sent = n
			}
			dup, unexpected, samples := tally(stubChats{texts: tt.texts}, people)
			if dup != tt.wantDuplicates || unexpected != tt.wantUnexpected || len(samples) != unexpected {
				t.Fatalf("tally = %d duplicates, %d unexpected %q; want %d, %d",
					dup, unexpected, samples, tt.wantDuplicates, tt.wantUnexpected)
			}
		})
	}
}

func TestResponderAnswersTheQuestionsToken(t *testing.T) {
	req := llmtest.Request{JSON: map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "earlier " + question(3, 3)},
		map[string]any{"role": "assistant", "content": answer(token(3, 3))},
		map[string]any{"role": "user", "content": question(3, 4)},
	}}}
	reply := responder(ms(5))(req)
	if got := strings.Join(reply.Chunks, ""); got != answer("msg-3-4") {
		t.Fatalf("answer %q, want %q", got, answer("msg-3-4"))
	}
	if reply.ChunkEvery != ms(5) || len(reply.Chunks) < 2 {
		t.Fatalf("reply %+v: want several chunks 5ms apart", reply)
	}
}

func TestResponderWithoutToken(t *testing.T) {
	reply := responder(0)(llmtest.Request{})
	if got := strings.Join(reply.Chunks, ""); tokenRE.MatchString(got) {
		t.Fatalf("a request without a question got %q, which could pass for an answer", got)
	}
}
