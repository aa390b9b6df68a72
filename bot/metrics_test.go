package bot_test

import (
	"context"
	"iter"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
	"github.com/parleybot/parley/store"
)

// recordedMetrics is a bot.Metrics that keeps what it was told.
type recordedMetrics struct {
	mu     sync.Mutex
	turns  []bot.TurnOutcome
	finals []finalShown
}

type finalShown struct {
	platform string
	d        time.Duration
	allowed  int
}

func (m *recordedMetrics) TurnEnded(platform string, o bot.TurnOutcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, bot.TurnOutcome(platform+":"+string(o)))
}

func (m *recordedMetrics) FinalShown(platform string, d time.Duration, allowed int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finals = append(m.finals, finalShown{platform, d, allowed})
}

func (m *recordedMetrics) Spent(string, string, int64) {}

func (m *recordedMetrics) snapshot() ([]bot.TurnOutcome, []finalShown) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]bot.TurnOutcome(nil), m.turns...), append([]finalShown(nil), m.finals...)
}

// pacedModel streams "Hel" at once and "lo" after gap, then waits gap2
// and is done (or fails with fail). It asks bot.InboundToModel twice per
// request, as a provider wrapper and a second model call of the same turn
// would, and keeps the answers.
type pacedModel struct {
	gap, gap2 time.Duration
	fail      error

	mu      sync.Mutex
	inbound []inboundSeen
}

type inboundSeen struct {
	platform string
	d        time.Duration
	ok       bool
}

func (p *pacedModel) Stream(ctx context.Context, _ llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for range 2 {
			platform, d, ok := bot.InboundToModel(ctx, time.Now())
			p.mu.Lock()
			p.inbound = append(p.inbound, inboundSeen{platform, d, ok})
			p.mu.Unlock()
		}
		if !yield(llm.Event{Kind: llm.EventTextDelta, Text: "Hel"}, nil) || clock.Sleep(ctx, p.gap) != nil {
			return
		}
		if !yield(llm.Event{Kind: llm.EventTextDelta, Text: "lo"}, nil) || clock.Sleep(ctx, p.gap2) != nil {
			return
		}
		if p.fail != nil {
			yield(llm.Event{}, p.fail)
			return
		}
		yield(llm.Event{Kind: llm.EventDone, Response: &llm.Response{Text: "Hello", StopReason: llm.StopEnd}}, nil)
	}
}

func (p *pacedModel) seen() []inboundSeen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]inboundSeen(nil), p.inbound...)
}

// TestMetricsOfTurns: the core tells Metrics how each turn ended, how long
// its final took to show once the model was done, and the edits its
// streaming time allowed; a turn's first model request, and only that,
// learns how long ago its message arrived.
func TestMetricsOfTurns(t *testing.T) {
	tests := []struct {
		name        string
		fail        error
		stopAt      time.Duration // stop the core this long after the message; 0: never
		wantOutcome bot.TurnOutcome
		wantFinal   bool
		wantAllowed int
	}{
		// Streamed for 2.5 s at one edit a second with a burst of 1: 1 + 2.
		{"answered", nil, 0, bot.TurnAnswered, true, 3},
		{"failed", &llm.Error{Provider: "Test", Kind: llm.KindAuth, Status: 401}, 0, bot.TurnFailed, true, 3},
		{"interrupted by shutdown", nil, time.Second, bot.TurnInterrupted, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recordedMetrics{}
				model := &pacedModel{gap: time.Second, gap2: 1500 * time.Millisecond, fail: tt.fail}
				w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack"}))
				w.provider = model
				w.setup = func(cfg *bot.CoreConfig, _ *store.DB) { cfg.Metrics = rec }
				w.start(t)
				if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "hello")); err != nil {
					t.Fatal(err)
				}
				if tt.stopAt > 0 {
					time.Sleep(tt.stopAt)
					w.stop(t)
				} else {
					time.Sleep(time.Minute)
					synctest.Wait()
					w.stop(t)
				}

				turns, finals := rec.snapshot()
				if want := bot.TurnOutcome("slack:" + string(tt.wantOutcome)); len(turns) != 1 || turns[0] != want {
					t.Fatalf("turns %q, want [%s]", turns, want)
				}
				if !tt.wantFinal {
					if len(finals) != 0 {
						t.Fatalf("finals %+v for a turn that never finished", finals)
					}
				} else {
					// The final waits at most one edit interval for its
					// token after the last frame.
					if len(finals) != 1 || finals[0].platform != "slack" || finals[0].d < 0 || finals[0].d > time.Second ||
						finals[0].allowed != tt.wantAllowed {
						t.Fatalf("finals %+v, want one on slack within 1s allowing %d edits", finals, tt.wantAllowed)
					}
				}
				// In the bubble no time passes between the message and the
				// request: the delay is exactly zero.
				seen := model.seen()
				if len(seen) != 2 || seen[0] != (inboundSeen{"slack", 0, true}) || seen[1].ok {
					t.Fatalf("InboundToModel answered %+v: want slack, 0, ok once, then nothing", seen)
				}
			})
		})
	}
}

// TestInboundToModelOutsideTurns: a context no turn marked tells nothing.
func TestInboundToModelOutsideTurns(t *testing.T) {
	if p, d, ok := bot.InboundToModel(t.Context(), time.Now()); ok {
		t.Fatalf("InboundToModel outside a turn = %q, %v, true", p, d)
	}
}

// TestLoadCountsQueuesAndSlots: with one slot, the first person's turn
// holds it, a second person's waits for it, and a message sent to the
// first conversation meanwhile waits in its queue.
func TestLoadCountsQueuesAndSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &pacedModel{gap: time.Minute, gap2: time.Minute}
		w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack"}))
		w.provider = model
		var core *bot.Core
		w.setup = func(cfg *bot.CoreConfig, _ *store.DB) { cfg.MaxConcurrent = 1 }
		w.onCore = func(c *bot.Core) { core = c }
		w.start(t)
		defer w.stop(t)
		if got := core.Load(); got != (bot.Load{}) {
			t.Fatalf("idle Load() = %+v", got)
		}
		other := coreMention("k2", "bo", "hello")
		other.Thread.ID = "200.1"
		for _, m := range []chat.Message{coreMention("k1", "ana", "hello"), other, coreMention("k3", "ana", "and this")} {
			if err := w.fake.InjectMessage(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		// k3 is ana's, so it steers her running turn at its next step;
		// until then it waits in the queue.
		if got, want := core.Load(), (bot.Load{Queued: 1, Waiting: 1, Running: 1}); got != want {
			t.Fatalf("Load() = %+v, want %+v", got, want)
		}
	})
}
