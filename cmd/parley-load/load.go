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

// script is what the fake model answers to each question, and how fast.
type script struct {
	// chars is the answer's length; the short answer when it holds less
	// than that needs.
	chars int
	// latency is the pause before the answer starts (time to first
	// token); delay the pause between its streamed chunks.
	latency, delay time.Duration
}

// answerParts is how many chunks a long answer streams in.
const answerParts = 8

func (s script) chunks(tok string) []string {
	short := []string{"Answer ", "to ", tok, ", all good."}
	n := len(strings.Join(short, ""))
	if s.chars <= n {
		return short
	}
	// Filler words up to the length, then cut into even parts.
	var b strings.Builder
	b.WriteString(strings.Join(short, ""))
	for b.Len() < s.chars {
		b.WriteString(" More words follow here.")
	}
	// Never ending in a space, which a platform trims from what it shows.
	text := b.String()[:s.chars-1] + "."
	var out []string
	step := (len(text) + answerParts - 1) / answerParts
	for i := 0; i < len(text); i += step {
		out = append(out, text[i:min(i+step, len(text))])
	}
	return out
}

func (s script) answer(tok string) string { return strings.Join(s.chunks(tok), "") }

// responder is the fake model: the scripted answer to any request.
func (s script) responder() func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		tok := tokenRE.FindString(req.LastUserText())
		if tok == "" {
			tok = "no-token" // shows up as an unexpected message if it reaches a chat
		}
		return llmtest.Text(s.chunks(tok)...).Paced(s.delay).Delayed(s.latency)
	}
}

// load drives the simulated people and times every answer.
type load struct {
	p        platform
	script   script // what each answer is
	timeout  time.Duration
	tl       *timeline
	messages int // each person sends, one after the other
	// rounds runs the load this many times, each round with fresh people
	// (new chats), so a soak piles up conversations, not one endless chat
	// per person whose history every turn reads back; no round starts
	// after deadline (when not zero).
	rounds   int
	deadline time.Time
	// ramp spreads each round's first questions evenly over its length,
	// for a steady state instead of everyone asking in the same instant.
	ramp time.Duration
	// afterRound, when set, is called as each round (from 0) ends, with
	// how many answers have been seen so far and whether it is the last
	// round to run: a moment with no turn in flight, for memory readings
	// that do not catch a round's load halfway.
	afterRound func(round, answered int, last bool)

	mu       sync.Mutex
	waits    map[int]*pending // by person: the answer they wait for
	answered int
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
	rounds    int    // rounds run
	cut       string // why fewer rounds ran than asked ("duration")
}

func newLoad(p platform, messages int, timeout time.Duration, tl *timeline) *load {
	return &load{p: p, messages: messages, rounds: 1, timeout: timeout, tl: tl, waits: map[int]*pending{}}
}

// run lets each round's people chat at once, round after round, and
// returns when every person has sent all their messages and got (or
// given up on) every answer, or ctx ends. Round r's people are numbered
// r*users to (r+1)*users-1.
func (l *load) run(ctx context.Context, users int) outcome {
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go l.watch(watchCtx)

	out := outcome{people: make([]personResult, users*l.rounds)}
	start := time.Now()
	for r := 0; r < l.rounds && ctx.Err() == nil; r++ {
		var wg sync.WaitGroup
		for i := range users {
			wg.Go(func() {
				if l.ramp > 0 {
					t := time.NewTimer(l.ramp * time.Duration(i) / time.Duration(users))
					defer t.Stop()
					select {
					case <-t.C:
					case <-ctx.Done():
						return
					}
				}
				out.people[r*users+i] = l.person(ctx, r*users+i)
			})
		}
		wg.Wait()
		out.rounds++
		// Whether another round starts is decided as this one ends, so
		// the reading after it knows whether it is the last.
		cut := r < l.rounds-1 && !l.deadline.IsZero() && time.Now().After(l.deadline)
		if l.afterRound != nil {
			l.mu.Lock()
			n := l.answered
			l.mu.Unlock()
			l.afterRound(r, n, cut || r == l.rounds-1)
		}
		if cut {
			out.cut = "duration"
			break
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
	for n := 0; n < l.messages && ctx.Err() == nil; n++ {
		tok := token(i, n)
		p := &pending{want: l.script.answer(tok), seen: make(chan time.Time, 1)}
		// Registered before posting, so no change of the fake can show
		// the answer unnoticed.
		l.mu.Lock()
		l.waits[i] = p
		l.mu.Unlock()
		start := time.Now()
		l.tl.posted(tok, start)
		l.p.post(i, question(i, n))
		r.sent++
		at, ok := l.await(ctx, i, p)
		if !ok {
			r.lost++
			continue
		}
		r.latencies = append(r.latencies, at.Sub(start))
		l.tl.shown(tok, at)
		l.mu.Lock()
		l.answered++
		l.mu.Unlock()
	}
	return r
}

// await returns when p's answer became visible, or false when the person
// gave up (timeout) or the load ended.
func (l *load) await(ctx context.Context, i int, p *pending) (time.Time, bool) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	select {
	case at := <-p.seen:
		return at, true
	case <-ctx.Done():
	}
	l.mu.Lock()
	if l.waits[i] == p {
		delete(l.waits, i)
	}
	l.mu.Unlock()
	// The watcher may have found it just before the wait was withdrawn.
	select {
	case at := <-p.seen:
		return at, true
	default:
		return time.Time{}, false
	}
}

// watch resolves waits as answers appear. The fake tells which chats
// Parley's calls changed (calls.go), so only those are read, once per
// batch of changes, however many people wait.
func (l *load) watch(ctx context.Context) {
	log := l.p.log()
	for {
		select {
		case <-ctx.Done():
			return
		case <-log.wake:
		}
		latest := map[int]time.Time{}
		for _, c := range log.take() {
			if c.at.After(latest[c.person]) {
				latest[c.person] = c.at
			}
		}
		for person, at := range latest {
			l.check(person, at)
		}
	}
}

// check resolves person's wait if its answer is visible, as of at: the
// latest call that changed their chat. Nothing happens in a chat between
// its final answer and the next question, which waits for this, so that
// call is the one that showed the answer.
func (l *load) check(person int, at time.Time) {
	l.mu.Lock()
	p := l.waits[person]
	l.mu.Unlock()
	if p == nil || !slices.Contains(l.p.botTexts(person), p.want) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waits[person] == p {
		delete(l.waits, person)
		p.seen <- at
	}
}

// tally counts, once the load is over, the bot messages beyond one per
// message sent (duplicates) and those that are no answer at all (error
// notices, partial answers), with a few of the latter as samples.
func tally(p platform, s script, people []personResult) (duplicates, unexpected int, samples []string) {
	const maxSamples = 5
	for i, r := range people {
		texts := p.botTexts(i)
		duplicates += max(0, len(texts)-r.sent)
		for _, t := range texts {
			tok := tokenRE.FindString(t)
			if tok != "" && t == s.answer(tok) && tokenIsFor(tok, i, r.sent) {
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
	var p, n int
	if _, err := fmt.Sscanf(tok, "msg-%d-%d", &p, &n); err != nil {
		return false
	}
	return p == person && n >= 0 && n < sent && tok == token(p, n)
}
