package main

import (
	"sync"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// timeline joins, per answer (its question's token), what the fakes saw:
// when the person posted, when the model fake got the request, when it
// finished streaming the answer, and when the platform fake showed it
// whole. From those come the figures no single fake could give: the
// bot's share of the latency (model done → visible) and its inbound path
// (posted → model asked).
type timeline struct {
	mu      sync.Mutex
	answers map[string]*answerTimes
}

// answerTimes are one answer's moments; a zero one did not happen (yet).
type answerTimes struct {
	posted, asked, modelDone, shown time.Time
}

func newTimeline() *timeline { return &timeline{answers: map[string]*answerTimes{}} }

func (tl *timeline) at(tok string) *answerTimes {
	a, ok := tl.answers[tok]
	if !ok {
		a = &answerTimes{}
		tl.answers[tok] = a
	}
	return a
}

// posted notes that the question tok was posted at.
func (tl *timeline) posted(tok string, at time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.at(tok).posted = at
}

// asked notes the model fake receiving a request for an answer now: the
// first one counts (a retry is the bot's time too).
func (tl *timeline) asked(req llmtest.Request) {
	tl.stamp(req, func(a *answerTimes, now time.Time) {
		if a.asked.IsZero() {
			a.asked = now
		}
	})
}

// answered notes the model fake finishing an answer now: the last one
// counts (after a retry, the answer shown is the last one streamed).
func (tl *timeline) answered(req llmtest.Request) {
	tl.stamp(req, func(a *answerTimes, now time.Time) { a.modelDone = now })
}

// stamp has set note the time now on the answer req asks for.
func (tl *timeline) stamp(req llmtest.Request, set func(a *answerTimes, now time.Time)) {
	tok := tokenRE.FindString(req.LastUserText())
	if tok == "" {
		return
	}
	now := time.Now()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	set(tl.at(tok), now)
}

// shown notes that tok's answer became visible, whole, at.
func (tl *timeline) shown(tok string, at time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.at(tok).shown = at
}

// spans returns, over the answers that have both ends, the bot-added
// latency (model done → shown) and the inbound path (posted → asked).
// The fakes stamp on different goroutines, so an answer shown within
// microseconds of the model's last flush can read a hair negative: it
// counts as 0.
func (tl *timeline) spans() (botAdded, inbound []time.Duration) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, a := range tl.answers {
		if !a.modelDone.IsZero() && !a.shown.IsZero() {
			botAdded = append(botAdded, max(0, a.shown.Sub(a.modelDone)))
		}
		if !a.posted.IsZero() && !a.asked.IsZero() {
			inbound = append(inbound, max(0, a.asked.Sub(a.posted)))
		}
	}
	return botAdded, inbound
}
