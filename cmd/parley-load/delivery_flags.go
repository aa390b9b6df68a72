package main

// The flags measuring delivery: -bot-added and -env.

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// botAdded measures, with -bot-added, the latency Parley adds once the
// model is done: from the fake model's last chunk to the complete answer
// being visible on the fake platform. The model's end is when its last
// chunk is due (the request's arrival plus the pauses between chunks);
// the answer's, when the load's watcher first reads it.
type botAdded struct {
	mu   sync.Mutex
	done map[string]time.Time // by token: when the model finished the answer
	lat  []time.Duration
}

func newBotAdded() *botAdded { return &botAdded{done: map[string]time.Time{}} }

// responder wraps the fake model's responder, noting when each answer ends.
func (b *botAdded) responder(next func(llmtest.Request) llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		r := next(req)
		if tok := tokenRE.FindString(req.LastUserText()); tok != "" {
			end := time.Now().Add(time.Duration(max(len(r.Chunks)-1, 0)) * r.ChunkEvery)
			b.mu.Lock()
			b.done[tok] = end
			b.mu.Unlock()
		}
		return r
	}
}

// watch wraps the platform so that the first read of each complete answer
// is timed.
func (b *botAdded) watch(p platform) platform { return &timedPlatform{platform: p, b: b} }

type timedPlatform struct {
	platform
	b *botAdded
}

func (t *timedPlatform) botTexts(person int) []string {
	texts := t.platform.botTexts(person)
	now := time.Now()
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	for _, s := range texts {
		tok := tokenRE.FindString(s)
		if end, ok := t.b.done[tok]; ok && s == answer(tok) {
			t.b.lat = append(t.b.lat, now.Sub(end))
			delete(t.b.done, tok)
		}
	}
	return texts
}

// stats summarises the answers seen so far.
func (b *botAdded) stats() latencyStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return summarise(b.lat)
}

// envFlags is -env, repeatable: extra KEY=VALUE settings for Parley, such
// as PARLEY_LIMITS_TURNS_PER_MINUTE=0 for a run whose people write faster
// than the per-person limit lets them.
type envFlags []string

func (e *envFlags) String() string { return strings.Join(*e, ",") }

func (e *envFlags) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("%q: want KEY=VALUE", v)
	}
	*e = append(*e, v)
	return nil
}
