package llmtest

import (
	"context"
	"iter"
	"strings"
	"sync"

	"github.com/parleybot/parley/agent/llm"
)

// Instant is an in-process llm.Provider with no I/O at all: it answers
// from a script of responses, cycling, streaming text word by word. For
// benchmarks of the layers above the provider.
type Instant struct {
	mu     sync.Mutex
	script []llm.Response
	next   int
}

// NewInstant returns a provider answering with script, in order, cycling.
func NewInstant(script ...llm.Response) *Instant {
	return &Instant{script: script}
}

// Stream implements llm.Provider.
func (p *Instant) Stream(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
	p.mu.Lock()
	resp := p.script[p.next%len(p.script)]
	p.next++
	p.mu.Unlock()
	return func(yield func(llm.Event, error) bool) {
		for _, w := range strings.SplitAfter(resp.Text, " ") {
			if w != "" && !yield(llm.Event{Kind: llm.EventTextDelta, Text: w}, nil) {
				return
			}
		}
		yield(llm.Event{Kind: llm.EventDone, Response: &resp}, nil)
	}
}
