package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

func newPacer(every time.Duration, burst int, scope chat.PaceScope) *outbound.Pacer {
	return outbound.NewPacer(outbound.PacerConfig{
		Platform:     "slack",
		Capabilities: chat.Capabilities{EditEvery: every, EditBurst: burst, EditScope: scope},
	})
}

func TestPacerKeys(t *testing.T) {
	a := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}
	sameChat := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "2.2"}
	otherChat := chat.Thread{Platform: "slack", Space: "T1", Chat: "C2", ID: "1.1"}
	otherSpace := chat.Thread{Platform: "slack", Space: "T2", Chat: "C1", ID: "1.1"}
	tests := []struct {
		scope chat.PaceScope
		other chat.Thread
		same  bool
	}{
		{chat.PacePerChat, sameChat, true},
		{chat.PacePerChat, otherChat, false},
		{chat.PacePerChat, otherSpace, false}, // chat ids are only unique within a space
		{chat.PacePerWorkspace, otherChat, true},
		{chat.PacePerWorkspace, otherSpace, false},
		{chat.PaceGlobal, otherSpace, true},
	}
	for _, tt := range tests {
		p := newPacer(time.Second, 1, tt.scope)
		if got := p.Key(a) == p.Key(tt.other); got != tt.same {
			t.Errorf("scope %d: %v and %v share a bucket: %v, want %v", tt.scope, a, tt.other, got, tt.same)
		}
		if k := p.Key(a); k.Platform != "slack" {
			t.Errorf("key %+v has no platform", k)
		}
	}
}

// waitTimes runs n concurrent Waits on key and returns when each was
// granted, relative to start, in order.
func waitTimes(t *testing.T, p *outbound.Pacer, key outbound.PaceKey, n int, start time.Time) []time.Duration {
	t.Helper()
	var (
		mu  sync.Mutex
		got []time.Duration
		wg  sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			if err := p.Wait(t.Context(), key); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, time.Since(start))
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(got)
	return got
}

func secs(s ...float64) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, v := range s {
		out[i] = time.Duration(v * float64(time.Second))
	}
	return out
}

func TestPacerSpacesCalls(t *testing.T) {
	tests := []struct {
		name  string
		every time.Duration
		burst int
		n     int
		want  []time.Duration
	}{
		{"one per second", time.Second, 1, 4, secs(0, 1, 2, 3)},
		{"burst of three", time.Second, 3, 5, secs(0, 0, 0, 1, 2)},
		{"Slack chat.update", 1200 * time.Millisecond, 1, 3, secs(0, 1.2, 2.4)},
		{"unpaced", 0, 0, 3, secs(0, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newPacer(tt.every, tt.burst, chat.PacePerChat)
				key := p.Key(chat.Thread{Platform: "slack", Chat: "C1"})
				got := waitTimes(t, p, key, tt.n, time.Now())
				if !slices.Equal(got, tt.want) {
					t.Errorf("granted at %v, want %v", got, tt.want)
				}
			})
		})
	}
}

func TestPacerPenalize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(time.Second, 3, chat.PacePerChat)
		key := p.Key(chat.Thread{Platform: "slack", Chat: "C1"})
		other := p.Key(chat.Thread{Platform: "slack", Chat: "C2"})
		start := time.Now()
		p.Penalize(key, 5*time.Second)
		// Everyone on the bucket waits out the penalty, then the bucket
		// resumes with one token, not a burst of three.
		if got, want := waitTimes(t, p, key, 3, start), secs(5, 6, 7); !slices.Equal(got, want) {
			t.Errorf("penalized bucket granted at %v, want %v", got, want)
		}
		// Other scopes are not held back.
		if got, want := waitTimes(t, p, other, 3, start), secs(7, 7, 7); !slices.Equal(got, want) {
			t.Errorf("other bucket granted at %v, want %v (its full burst, at once)", got, want)
		}
		// A shorter penalty does not cut a longer one short.
		start = time.Now()
		p.Penalize(key, 10*time.Second)
		p.Penalize(key, time.Second)
		if got, want := waitTimes(t, p, key, 1, start), secs(10); !slices.Equal(got, want) {
			t.Errorf("after 10 s then 1 s penalties granted at %v, want %v", got, want)
		}
	})
}

func TestPacerPenaltyWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(time.Second, 1, chat.PacePerChat)
		key := p.Key(chat.Thread{Platform: "slack", Chat: "C1"})
		start := time.Now()
		if err := p.Wait(t.Context(), key); err != nil { // the burst token
			t.Fatal(err)
		}
		done := make(chan time.Duration)
		go func() {
			p.Wait(t.Context(), key) // reserved for +1 s
			done <- time.Since(start)
		}()
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		p.Penalize(key, 3*time.Second) // until +3.5 s
		// The token reserved for +1 s is forfeit; the waiter queues again
		// and gets the one token the bucket has when the penalty ends.
		if got, want := <-done, 3500*time.Millisecond; got != want {
			t.Errorf("waiter granted at %s, want %s", got, want)
		}
	})
}

func TestPacerCancelReturnsToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(time.Second, 1, chat.PacePerChat)
		key := p.Key(chat.Thread{Platform: "slack", Chat: "C1"})
		start := time.Now()
		p.Wait(t.Context(), key)
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error)
		go func() { errc <- p.Wait(ctx, key) }() // reserves +1 s
		time.Sleep(500 * time.Millisecond)
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Wait = %v", err)
		}
		// The cancelled waiter's token is back: the next one gets +1 s,
		// not +2 s.
		if got, want := waitTimes(t, p, key, 1, start), secs(1); !slices.Equal(got, want) {
			t.Errorf("granted at %v, want %v", got, want)
		}
	})
}

// TestPacerInjectedClock: the pacer runs on any clock with Now and Sleep;
// here a manual one, stepped by the test.
func TestPacerInjectedClock(t *testing.T) {
	clock := bottest.NewClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	p := outbound.NewPacer(outbound.PacerConfig{
		Platform:     "telegram",
		Capabilities: chat.Capabilities{EditEvery: time.Second, EditBurst: 1},
		Now:          clock.Now,
		Sleep:        clock.Sleep,
	})
	key := p.Key(chat.Thread{Platform: "telegram", Chat: "42"})
	if err := p.Wait(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- p.Wait(t.Context(), key) }()
	if err := clock.WaitSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(999 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v before its token was due", err)
	default:
	}
	clock.Advance(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPacerUnpacedStillPenalized(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(0, 0, chat.PacePerChat)
		key := p.Key(chat.Thread{Platform: "slack", Chat: "C1"})
		start := time.Now()
		p.Penalize(key, 2*time.Second)
		if got, want := waitTimes(t, p, key, 3, start), secs(2, 2, 2); !slices.Equal(got, want) {
			t.Errorf("granted at %v, want %v", got, want)
		}
	})
}

// TestPacerConcurrentScopes: many goroutines over a few buckets, under the
// race detector; each bucket's grants stay one interval apart.
func TestPacerConcurrentScopes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(time.Second, 1, chat.PacePerChat)
		start := time.Now()
		var (
			mu     sync.Mutex
			grants = map[outbound.PaceKey][]time.Duration{}
			wg     sync.WaitGroup
		)
		for i := range 100 {
			key := p.Key(chat.Thread{Platform: "slack", Chat: fmt.Sprint(i % 5)})
			wg.Go(func() {
				if i%7 == 0 {
					p.Penalize(key, 3*time.Second)
				}
				if err := p.Wait(t.Context(), key); err != nil {
					t.Error(err)
				}
				mu.Lock()
				grants[key] = append(grants[key], time.Since(start))
				mu.Unlock()
			})
		}
		wg.Wait()
		for k, g := range grants {
			slices.Sort(g)
			for i := 1; i < len(g); i++ {
				if g[i]-g[i-1] < time.Second {
					t.Errorf("%v: grants %s and %s less than an interval apart", k, g[i-1], g[i])
				}
			}
		}
	})
}

// BenchmarkPacerWait measures the Wait path when a token is available: the
// cost every send and edit pays.
func BenchmarkPacerWait(b *testing.B) {
	for _, keys := range []int{1, 1000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			p := outbound.NewPacer(outbound.PacerConfig{
				Platform:     "slack",
				Capabilities: chat.Capabilities{EditEvery: time.Nanosecond, EditBurst: 1 << 30},
			})
			ks := make([]outbound.PaceKey, keys)
			for i := range ks {
				ks[i] = p.Key(chat.Thread{Platform: "slack", Chat: fmt.Sprint(i)})
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if err := p.Wait(ctx, ks[i%keys]); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		})
	}
}

// TestPacerBudgetPerKind: an adapter whose limits differ by conversation
// (Telegram: private chats ~1/s, groups 20/min) gives each scope its own
// budget through PaceOf, including after a penalty.
func TestPacerBudgetPerKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := outbound.NewPacer(outbound.PacerConfig{
			Platform: "telegram",
			Capabilities: chat.Capabilities{
				EditEvery: time.Second, EditBurst: 1, EditScope: chat.PacePerChat,
				PaceOf: func(th chat.Thread) (time.Duration, int) {
					if strings.HasPrefix(th.Chat, "-") {
						return 3 * time.Second, 2
					}
					return time.Second, 1
				},
			},
		})
		private := p.Key(chat.Thread{Platform: "telegram", Chat: "42"})
		group := p.Key(chat.Thread{Platform: "telegram", Chat: "-100"})
		if private == group {
			t.Fatal("a private chat and a group share a bucket")
		}
		start := time.Now()
		if got, want := waitTimes(t, p, private, 3, start), secs(0, 1, 2); !slices.Equal(got, want) {
			t.Errorf("private chat granted at %v, want %v", got, want)
		}
		start = time.Now()
		if got, want := waitTimes(t, p, group, 4, start), secs(0, 0, 3, 6); !slices.Equal(got, want) {
			t.Errorf("group granted at %v, want %v", got, want)
		}
		p.Penalize(group, 10*time.Second)
		start = time.Now()
		if got, want := waitTimes(t, p, group, 2, start), secs(10, 13); !slices.Equal(got, want) {
			t.Errorf("group after a penalty granted at %v, want %v", got, want)
		}
	})
}

// TestPacerAbandonedWaitersLeaveNoDebt: a crowd of waiters that all give
// up (their deadline passes while they queue) leaves the bucket as it was:
// the next caller is served at the bucket's next token, not behind the
// crowd's phantom reservations. Without this an overloaded platform never
// recovers: every later wave queues behind the last and gives up too.
func TestPacerAbandonedWaitersLeaveNoDebt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(time.Second, 1, chat.PacePerWorkspace)
		key := p.Key(chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"})
		start := time.Now()
		if err := p.Wait(t.Context(), key); err != nil { // the burst token
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if err := p.Wait(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("a waiter past its deadline got %v", err)
				}
			})
		}
		wg.Wait()
		if got, want := waitTimes(t, p, key, 2, start), secs(1, 2); !slices.Equal(got, want) {
			t.Errorf("after the crowd gave up, granted at %v, want %v", got, want)
		}
	})
}

// TestPacerPostBudget: where the platform limits new messages per chat
// and edits per workspace (Slack), a crowd of new answers across
// channels does not queue behind the workspace's edits, nor the reverse.
func TestPacerPostBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := chat.Capabilities{EditEvery: 1200 * time.Millisecond, EditBurst: 1, EditScope: chat.PacePerWorkspace,
			PostEvery: time.Second, PostBurst: 1}
		p := outbound.NewPacer(outbound.PacerConfig{Platform: "slack", Capabilities: caps})
		d1 := chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}
		d2 := chat.Thread{Platform: "slack", Space: "T1", Chat: "D2"}
		if p.PostKey(d1) == p.PostKey(d2) || p.PostKey(d1) == p.Key(d1) || p.Key(d1) != p.Key(d2) {
			t.Fatal("want posts per channel and edits per workspace")
		}
		start := time.Now()
		for _, key := range []outbound.PaceKey{p.Key(d1), p.PostKey(d1), p.PostKey(d2)} {
			if got := waitTimes(t, p, key, 1, start); !slices.Equal(got, secs(0)) {
				t.Errorf("first call on %v granted at %v, want at once", key, got)
			}
		}
		if got, want := waitTimes(t, p, p.PostKey(d1), 1, start), secs(1); !slices.Equal(got, want) {
			t.Errorf("second post in D1 granted at %v, want %v", got, want)
		}

		shared := outbound.NewPacer(outbound.PacerConfig{Platform: "telegram", Capabilities: chat.Capabilities{EditEvery: time.Second, EditBurst: 1}})
		if th := (chat.Thread{Platform: "telegram", Chat: "42"}); shared.PostKey(th) != shared.Key(th) {
			t.Error("without PostEvery, posts and edits share one budget")
		}
	})
}

// TestPacerFinalsFirst: under a saturated budget the classes are served
// finals (WaitFirst) first, then ordinary calls (Wait), then frames
// (WaitFrame), each class in arrival order; a frame steps back even when it
// already waited first in line, and a frame never takes a bucket's last
// token when its burst could keep it for a final.
func TestPacerFinalsFirst(t *testing.T) {
	type arrival struct {
		name  string
		class string // "final", "ordinary", "frame"
	}
	tests := []struct {
		name     string
		burst    int
		arrivals []arrival // each queued after the one before
		want     map[string]time.Duration
	}{
		{
			name:     "finals overtake queued frames, in their own order",
			burst:    1,
			arrivals: []arrival{{"frame1", "frame"}, {"frame2", "frame"}, {"final1", "final"}, {"final2", "final"}},
			want: map[string]time.Duration{
				"final1": 1 * time.Second, "final2": 2 * time.Second,
				"frame1": 3 * time.Second, "frame2": 4 * time.Second,
			},
		},
		{
			name:     "ordinary calls between finals and frames",
			burst:    1,
			arrivals: []arrival{{"frame1", "frame"}, {"notice1", "ordinary"}, {"final1", "final"}, {"notice2", "ordinary"}, {"final2", "final"}},
			want: map[string]time.Duration{
				"final1": 1 * time.Second, "final2": 2 * time.Second,
				"notice1": 3 * time.Second, "notice2": 4 * time.Second,
				"frame1": 5 * time.Second,
			},
		},
		{
			name:  "a frame keeps the last token for a final",
			burst: 2,
			// The burst's first token went at once; one is left, which a
			// frame may not take, a final may.
			arrivals: []arrival{{"frame1", "frame"}, {"final1", "final"}},
			want: map[string]time.Duration{
				"final1": 0,
				"frame1": 2 * time.Second, // two tokens again only then
			},
		},
		{
			name:     "finals alone are served in arrival order",
			burst:    1,
			arrivals: []arrival{{"final1", "final"}, {"final2", "final"}, {"final3", "final"}},
			want: map[string]time.Duration{
				"final1": 1 * time.Second, "final2": 2 * time.Second, "final3": 3 * time.Second,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newPacer(time.Second, tt.burst, chat.PacePerWorkspace)
				key := p.Key(chat.Thread{Platform: "slack", Space: "T1", Chat: "C1"})
				start := time.Now()
				if err := p.Wait(t.Context(), key); err != nil { // a burst token
					t.Fatal(err)
				}
				var mu sync.Mutex
				got := map[string]time.Duration{}
				var wg sync.WaitGroup
				for _, a := range tt.arrivals {
					wait := map[string]func(context.Context, outbound.PaceKey) error{
						"final": p.WaitFirst, "ordinary": p.Wait, "frame": p.WaitFrame,
					}[a.class]
					wg.Go(func() {
						if err := wait(t.Context(), key); err != nil {
							t.Error(err)
						}
						mu.Lock()
						got[a.name] = time.Since(start)
						mu.Unlock()
					})
					synctest.Wait() // queued before the next one arrives
				}
				wg.Wait()
				for name, at := range tt.want {
					if got[name] != at {
						t.Errorf("%s granted at %s, want %s (all: %v)", name, got[name], at, got)
					}
				}
			})
		})
	}
}

// TestPacerFree: Free says whether a frame would be granted now, taking
// nothing: not while anyone waits, nor under a penalty, nor when the bucket
// is down to the token kept for finals.
func TestPacerFree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPacer(time.Second, 2, chat.PacePerChat)
		key := p.Key(chat.Thread{Platform: "slack", Chat: "C1"})
		if !p.Free(key) || !p.Free(key) {
			t.Fatal("a fresh bucket is not free, or Free took a token")
		}
		p.Wait(t.Context(), key)
		if p.Free(key) {
			t.Error("free with one token left, which is kept for finals")
		}
		time.Sleep(time.Second)
		if !p.Free(key) {
			t.Error("not free once refilled")
		}
		p.Penalize(key, time.Second)
		if p.Free(key) {
			t.Error("free under a penalty")
		}
	})
}
