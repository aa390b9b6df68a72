package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// Every question carries a token naming its person and number, and the
// fake model's answer repeats it, so each answer is unique and tells which
// question it belongs to whatever Parley adds around the text.
var tokenRE = regexp.MustCompile(`msg-\d+-\d+`)

func token(person, n int) string { return fmt.Sprintf("msg-%d-%d", person, n) }

func question(person, n int) string {
	return "hello, please answer " + token(person, n)
}

func answerChunks(tok string) []string {
	return []string{"Answer ", "to ", tok, ", all good."}
}

func answer(tok string) string { return strings.Join(answerChunks(tok), "") }

// responder is the fake model: a short streamed answer to any request,
// chunks delay apart.
func responder(delay time.Duration) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		tok := tokenRE.FindString(req.LastUserText())
		if tok == "" {
			tok = "no-token" // shows up as an unexpected message if it reaches a chat
		}
		return llmtest.Text(answerChunks(tok)...).Paced(delay)
	}
}

// load drives the simulated people and times every answer.
type load struct {
	p        platform
	messages int
	timeout  time.Duration

	mu    sync.Mutex
	waits map[int]*pending // by person: the answer they wait for
}

// pending is an answer a person waits for.
type pending struct {
	want string
	seen chan time.Time // gets the moment want became visible; buffered
}

// personResult is what one person saw.
type personResult struct {
	sent      int
	lost      int
	latencies []time.Duration
}

// outcome is the whole load's.
type outcome struct {
	people    []personResult
	wall      time.Duration
	latencies []time.Duration
	sent      int
	lost      int
}

func newLoad(p platform, messages int, timeout time.Duration) *load {
	return &load{p: p, messages: messages, timeout: timeout, waits: map[int]*pending{}}
}

// run lets every person chat at once and returns when each has sent all
// their messages and got (or given up on) every answer, or ctx ends.
func (l *load) run(ctx context.Context, people int) outcome {
	return l.runRounds(ctx, people, 1, nil)
}

// runRounds runs the load rounds times, round r with people r*users up to
// (r+1)*users, and calls after (if set) as each round ends.
func (l *load) runRounds(ctx context.Context, users, rounds int, after func(round int)) outcome {
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go l.watch(watchCtx)

	out := outcome{people: make([]personResult, users*rounds)}
	start := time.Now()
	for r := 0; r < rounds && ctx.Err() == nil; r++ {
		var wg sync.WaitGroup
		for i := r * users; i < (r+1)*users; i++ {
			wg.Go(func() { out.people[i] = l.person(ctx, i) })
		}
		wg.Wait()
		if after != nil {
			after(r)
		}
	}
	out.wall = time.Since(start)
	for _, r := range out.people {
		out.sent += r.sent
		out.lost += r.lost
		out.latencies = append(out.latencies, r.latencies...)
	}
	return out
}

// person sends messages one after another, each once the previous one was
// answered or given up on.
func (l *load) person(ctx context.Context, i int) personResult {
	var r personResult
	for n := range l.messages {
		if ctx.Err() != nil {
			break
		}
		p := &pending{want: answer(token(i, n)), seen: make(chan time.Time, 1)}
		// Registered before posting, so no change of the fake can show
		// the answer unnoticed.
		l.mu.Lock()
		l.waits[i] = p
		l.mu.Unlock()
		start := time.Now()
		l.p.post(i, question(i, n))
		r.sent++
		if d, ok := l.await(ctx, i, p, start); ok {
			r.latencies = append(r.latencies, d)
		} else {
			r.lost++
		}
	}
	return r
}

func (l *load) await(ctx context.Context, i int, p *pending, start time.Time) (time.Duration, bool) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	select {
	case at := <-p.seen:
		return at.Sub(start), true
	case <-ctx.Done():
	}
	l.mu.Lock()
	delete(l.waits, i)
	l.mu.Unlock()
	// The watcher may have found it just before the wait was withdrawn.
	select {
	case at := <-p.seen:
		return at.Sub(start), true
	default:
		return 0, false
	}
}

// watch resolves waits as answers appear. One watcher scanning every
// pending wait per change of the fake costs far less than a WaitFor per
// person, each woken by every change.
func (l *load) watch(ctx context.Context) {
	for ctx.Err() == nil {
		if err := l.p.waitFor(ctx, l.scan); err != nil {
			return
		}
	}
}

// scan resolves the waits whose answer is visible and reports whether it
// resolved any.
func (l *load) scan() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	found := false
	for i, p := range l.waits {
		if slices.Contains(l.p.botTexts(i), p.want) {
			p.seen <- time.Now()
			delete(l.waits, i)
			found = true
		}
	}
	return found
}

// tally counts, once the load is over, the bot messages beyond one per
// message sent (duplicates) and those that are no answer at all (error
// notices, partial answers), with a few of the latter as samples.
func tally(p platform, people []personResult) (duplicates, unexpected int, samples []string) {
	const maxSamples = 5
	for i, r := range people {
		texts := p.botTexts(i)
		duplicates += max(0, len(texts)-r.sent)
		for _, t := range texts {
			tok := tokenRE.FindString(t)
			if tok != "" && t == answer(tok) && tokenIsFor(tok, i, r.sent) {
				continue
			}
			unexpected++
			if len(samples) < maxSamples {
				samples = append(samples, fmt.Sprintf("person %d: %q", i, t))
			}
		}
	}
	return duplicates, unexpected, samples
}

// tokenIsFor reports whether tok names one of the first sent questions of
// person.
func tokenIsFor(tok string, person, sent int) bool {
	for n := range sent {
		if tok == token(person, n) {
			return true
		}
	}
	return false
}
