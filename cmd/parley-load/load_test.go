package main

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// stubChats is a platform whose chats hold fixed bot messages, for tally.
type stubChats struct {
	platform // tally only reads botTexts
	texts    [][]string
}

func (s stubChats) botTexts(person int) []string { return s.texts[person] }

func TestTally(t *testing.T) {
	a := func(person, n int) string { return script{}.answer(token(person, n)) }
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
			dup, unexpected, samples := tally(stubChats{texts: tt.texts}, script{}, people)
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
		map[string]any{"role": "assistant", "content": script{}.answer(token(3, 3))},
		map[string]any{"role": "user", "content": question(3, 4)},
	}}}
	for _, sc := range []script{{delay: ms(5)}, {chars: 276, latency: ms(360), delay: ms(5)}, {chars: 3, delay: ms(5)}} {
		for _, tok := range []string{"msg-1-2", "msg-10-10", "msg-100-19", "msg-1000-9"} {
			if a := sc.answer(tok); strings.TrimSpace(a) != a {
				t.Fatalf("%+v: the answer to %s %q ends in a space, which a platform does not show", sc, tok, a)
			}
		}
		reply := sc.responder()(req)
		got := strings.Join(reply.Chunks, "")
		if got != sc.answer("msg-3-4") || !strings.HasPrefix(got, "Answer to msg-3-4, all good.") {
			t.Fatalf("%+v: answer %q, want %q", sc, got, sc.answer("msg-3-4"))
		}
		if sc.chars > 30 && len(got) != sc.chars {
			t.Fatalf("%+v: answer of %d characters, want %d", sc, len(got), sc.chars)
		}
		if reply.ChunkEvery != sc.delay || reply.Latency != sc.latency || len(reply.Chunks) < 2 {
			t.Fatalf("reply %+v: want several chunks %v apart after %v", reply, sc.delay, sc.latency)
		}
	}
}

func TestResponderWithoutToken(t *testing.T) {
	reply := script{}.responder()(llmtest.Request{})
	if got := strings.Join(reply.Chunks, ""); tokenRE.MatchString(got) {
		t.Fatalf("a request without a question got %q, which could pass for an answer", got)
	}
}

func TestTokenIsFor(t *testing.T) {
	tests := []struct {
		tok          string
		person, sent int
		want         bool
	}{
		{token(3, 0), 3, 1, true},
		{token(3, 4), 3, 5, true},
		{token(3, 5), 3, 5, false},  // never sent
		{token(2, 0), 3, 5, false},  // someone else's
		{"msg-3-01", 3, 5, false},   // not a token this tool writes
		{"msg-3-1x", 3, 5, false},   // trailing junk
		{"no-token", 3, 5, false},   // the fake model's answer to no question
		{token(13, 0), 1, 5, false}, // a prefix is not the person
	}
	for _, tt := range tests {
		if got := tokenIsFor(tt.tok, tt.person, tt.sent); got != tt.want {
			t.Errorf("tokenIsFor(%q, %d, %d) = %v, want %v", tt.tok, tt.person, tt.sent, got, tt.want)
		}
	}
}

// echoChats is a platform that answers every question at once, with one
// stray edit in another chat first, and reports both to its call log.
type echoChats struct {
	platform
	changes *callLog
	mu      sync.Mutex
	texts   map[int][]string
}

func (e *echoChats) post(person int, text string) {
	tok := tokenRE.FindString(text)
	e.changes.note(person^1, true, true) // someone else's chat changes: nothing to resolve
	e.mu.Lock()
	e.texts[person] = append(e.texts[person], script{}.answer(tok))
	e.mu.Unlock()
	e.changes.note(person, true, false)
}

func (e *echoChats) botTexts(person int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.texts[person])
}

func (e *echoChats) log() *callLog { return e.changes }

// TestLoadResolvesFromTheCallLog: answers are found by the chats the call
// log names, timed by the call that showed them, and every count adds
// up — in one round, and in rounds of fresh people.
func TestLoadResolvesFromTheCallLog(t *testing.T) {
	for _, rounds := range []int{1, 3} {
		e := &echoChats{changes: newCallLog(), texts: map[int][]string{}}
		l := newLoad(e, 3, time.Minute, newTimeline())
		l.rounds = rounds
		var seen, order []int
		var lasts int
		l.afterRound = func(r, n int, last bool) {
			seen, order = append(seen, n), append(order, r)
			if last {
				lasts++
			}
		}
		out := l.run(t.Context(), 2)
		want := 2 * 3 * rounds
		if out.sent != want || out.lost != 0 || len(out.latencies) != want || len(seen) != rounds || seen[rounds-1] != want ||
			out.rounds != rounds || len(out.people) != 2*rounds || order[rounds-1] != rounds-1 || lasts != 1 {
			t.Fatalf("%d rounds: %d sent, %d lost, %d answered, %d checkpoints, %d rounds, %d people; want %d answered",
				rounds, out.sent, out.lost, len(out.latencies), len(seen), out.rounds, len(out.people), want)
		}
		if dup, unexpected, _ := tally(e, script{}, out.people); dup != 0 || unexpected != 0 {
			t.Fatalf("%d rounds: %d duplicates, %d unexpected", rounds, dup, unexpected)
		}
		if e.changes.editCount() != want {
			t.Fatalf("%d edits counted, want %d", e.changes.editCount(), want)
		}
	}
}

// TestLoadStopsStartingRoundsAtTheDeadline: a soak bounded in time runs
// the round under way to its end and starts no other.
func TestLoadStopsStartingRoundsAtTheDeadline(t *testing.T) {
	e := &echoChats{changes: newCallLog(), texts: map[int][]string{}}
	l := newLoad(e, 2, time.Minute, newTimeline())
	l.rounds, l.deadline = 5, time.Now() // passed by the time round 1 ends
	var lastSeen []bool
	l.afterRound = func(_, _ int, last bool) { lastSeen = append(lastSeen, last) }
	out := l.run(t.Context(), 2)
	if out.rounds != 1 || out.cut != "duration" || out.sent != 4 || out.lost != 0 || len(lastSeen) != 1 || !lastSeen[0] {
		t.Fatalf("ran %d rounds (cut %q), %d sent, %d lost, last %v; want 1 round cut by duration, 4 sent, its reading the last",
			out.rounds, out.cut, out.sent, out.lost, lastSeen)
	}
}
