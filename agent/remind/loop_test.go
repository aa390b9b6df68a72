package remind

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/internal/backoff"
)

// memStore is a Store in memory, with the store.DB's semantics: a claim
// per item and occurrence, items advanced as Due says.
type memStore struct {
	mu         sync.Mutex
	items      map[int64]*Item
	claims     []memClaim
	lastID     int64
	claimCalls []time.Time // the now of every ClaimDue
	failClaims int         // how many ClaimDue calls still fail
}

type memClaim struct {
	c         Claim
	delivered bool
}

func newMemStore() *memStore { return &memStore{items: map[int64]*Item{}} }

func (s *memStore) add(it Item) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastID++
	it.ID = s.lastID
	it.Status = cmp.Or(it.Status, StatusActive)
	it.Kind = cmp.Or(it.Kind, KindReminder)
	it.Zone = cmp.Or(it.Zone, "UTC")
	s.items[it.ID] = &it
	return it.ID
}

func (s *memStore) ClaimDue(_ context.Context, now time.Time, grace time.Duration, limit int) ([]Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claimCalls = append(s.claimCalls, now)
	if s.failClaims > 0 {
		s.failClaims--
		return nil, errors.New("database is locked")
	}
	var due []*Item
	for _, it := range s.items {
		if it.Status == StatusActive && !it.Next.After(now) {
			due = append(due, it)
		}
	}
	slices.SortFunc(due, func(a, b *Item) int { return cmp.Or(a.Next.Compare(b.Next), cmp.Compare(a.ID, b.ID)) })
	var out []Claim
	for _, it := range due[:min(len(due), limit)] {
		d := Due(*it, now, grace)
		c := Claim{Item: *it, Occurrence: it.Next, Decision: d}
		if !slices.ContainsFunc(s.claims, func(m memClaim) bool { return m.c.Key() == c.Key() }) {
			s.claims = append(s.claims, memClaim{c: c})
			out = append(out, c)
		}
		if d.Done {
			it.Status = StatusDone
		} else {
			it.Next = d.Next
		}
	}
	return out, nil
}

func (s *memStore) PendingClaims(context.Context) ([]Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Claim
	for _, m := range s.claims {
		if !m.delivered {
			out = append(out, m.c)
		}
	}
	return out, nil
}

func (s *memStore) ClaimDelivered(_ context.Context, c Claim) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.claims {
		if s.claims[i].c.Key() == c.Key() {
			s.claims[i].delivered = true
		}
	}
	return nil
}

func (s *memStore) NextItemDue(context.Context) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, it := range s.items {
		if it.Status == StatusActive && (next.IsZero() || it.Next.Before(next)) {
			next = it.Next
		}
	}
	return next, !next.IsZero(), nil
}

func (s *memStore) calls() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.claimCalls)
}

// delivery is one call of Deliver.
type delivery struct {
	at time.Time
	c  Claim
}

// recorder is a Deliver that records its calls, failing the first fail
// of them.
type recorder struct {
	mu   sync.Mutex
	now  func() time.Time
	got  []delivery
	fail int
}

func (r *recorder) deliver(_ context.Context, c Claim) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, delivery{r.now(), c})
	if r.fail > 0 {
		r.fail--
		return errors.New("platform unavailable")
	}
	return nil
}

func (r *recorder) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// at returns the times of ds relative to start.
func at(ds []delivery, start time.Time) []time.Duration {
	var out []time.Duration
	for _, d := range ds {
		out = append(out, d.at.Sub(start))
	}
	return out
}

// The loop sleeps until the due time, not a moment less, and does not
// poll: only MaxSleep's safety net wakes it before.
func TestLoopWakesAtTheDueTime(t *testing.T) {
	tests := []struct {
		name     string
		maxSleep time.Duration
		calls    int // of ClaimDue, up to and including the due time
	}{
		{"no safety net within the wait", 24 * time.Hour, 2},
		{"the default safety net: every 5 min", 0, 1 + 120/5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				st := newMemStore()
				st.add(Item{Text: "stand-up", Next: start.Add(2 * time.Hour)})
				rec := &recorder{now: time.Now}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go (&Loop{Store: st, MaxSleep: tt.maxSleep}).Run(ctx, rec.deliver)

				time.Sleep(2*time.Hour - time.Millisecond)
				synctest.Wait()
				if got := rec.deliveries(); len(got) != 0 {
					t.Fatalf("delivered before the due time: %v", at(got, start))
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()
				got := rec.deliveries()
				if len(got) != 1 || got[0].at != start.Add(2*time.Hour) {
					t.Fatalf("deliveries at %v, want one at 2h", at(got, start))
				}
				if d := got[0].c.Decision; !d.Deliver || d.Late != 0 || !d.Done {
					t.Errorf("decision %+v, want on time and done", d)
				}
				calls := st.calls()
				if len(calls) != tt.calls || calls[len(calls)-1] != start.Add(2*time.Hour) {
					t.Errorf("%d ClaimDue calls, the last at %v; want %d, the last at 2h", len(calls), calls[len(calls)-1].Sub(start), tt.calls)
				}
				// Nothing is left: the loop sleeps MaxSleep at a time.
				time.Sleep(24 * time.Hour)
				synctest.Wait()
				if n := len(rec.deliveries()); n != 1 {
					t.Errorf("%d deliveries after a day, want 1", n)
				}
			})
		})
	}
}

// Wake makes a sleeping loop notice an item due before the one it sleeps
// for; without it, the new item waits for the loop's next wake.
func TestLoopWake(t *testing.T) {
	for _, wake := range []bool{true, false} {
		t.Run(map[bool]string{true: "woken", false: "not woken"}[wake], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				st := newMemStore()
				st.add(Item{Text: "later", Next: start.Add(10 * time.Hour)})
				rec := &recorder{now: time.Now}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				l := &Loop{Store: st, MaxSleep: 24 * time.Hour}
				go l.Run(ctx, rec.deliver)

				time.Sleep(time.Hour)
				st.add(Item{Text: "sooner", Next: start.Add(2 * time.Hour)})
				if wake {
					l.Wake()
					l.Wake() // twice is once
				}
				time.Sleep(10 * time.Hour)
				synctest.Wait()
				got := rec.deliveries()
				want := []time.Duration{2 * time.Hour, 10 * time.Hour}
				if !wake {
					want = []time.Duration{10 * time.Hour, 10 * time.Hour}
				}
				if !slices.Equal(at(got, start), want) {
					t.Fatalf("deliveries at %v, want %v", at(got, start), want)
				}
			})
		})
	}
}

// A failed delivery is retried with backoff until it succeeds, and holds
// back nothing else that is due.
func TestLoopRetriesFailedDeliveries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		st := newMemStore()
		st.add(Item{Text: "first", Next: start})
		st.add(Item{Text: "second", Next: start.Add(20 * time.Second)})
		rec := &recorder{now: time.Now, fail: 3}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go (&Loop{Store: st, Retry: backoff.Policy{Base: 5 * time.Second, Cap: time.Minute}}).Run(ctx, rec.deliver)

		time.Sleep(time.Hour)
		synctest.Wait()
		var first, second []time.Duration
		for _, d := range rec.deliveries() {
			if d.c.Item.Text == "first" {
				first = append(first, d.at.Sub(start))
			} else {
				second = append(second, d.at.Sub(start))
			}
		}
		if want := []time.Duration{0, 5 * time.Second, 15 * time.Second, 35 * time.Second}; !slices.Equal(first, want) {
			t.Errorf("first delivered at %v, want %v (backoff 5 s doubling)", first, want)
		}
		if want := []time.Duration{20 * time.Second}; !slices.Equal(second, want) {
			t.Errorf("second delivered at %v, want %v: a failing claim held it back", second, want)
		}
		if p, _ := st.PendingClaims(ctx); len(p) != 0 {
			t.Errorf("pending after success: %v", p)
		}
	})
}

// A store that fails is retried with backoff, not in a busy loop.
func TestLoopRetriesTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		st := newMemStore()
		st.add(Item{Text: "due", Next: start})
		st.failClaims = 2
		rec := &recorder{now: time.Now}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go (&Loop{Store: st, MaxSleep: 24 * time.Hour,
			Retry: backoff.Policy{Base: 5 * time.Second, Cap: time.Minute}}).Run(ctx, rec.deliver)

		time.Sleep(time.Hour)
		synctest.Wait()
		if got := at(rec.deliveries(), start); !slices.Equal(got, []time.Duration{15 * time.Second}) {
			t.Errorf("delivered at %v, want [15s]", got)
		}
		var calls []time.Duration
		for _, c := range st.calls() {
			calls = append(calls, c.Sub(start))
		}
		if want := []time.Duration{0, 5 * time.Second, 15 * time.Second}; !slices.Equal(calls, want) {
			t.Errorf("ClaimDue at %v, want %v", calls, want)
		}
	})
}

// An item found long overdue at start (the bot was down) is delivered
// once as missed; a claim a previous run left pending is delivered first,
// judged at its delivery.
func TestLoopMissedAndPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		st := newMemStore()
		st.add(Item{Text: "hourly", Spec: "50 * * * *", Next: start.Add(-10 * time.Minute)})
		// The previous run claimed "hourly" 10 min ago and stopped.
		if _, err := st.ClaimDue(t.Context(), start.Add(-10*time.Minute), time.Hour, 1); err != nil {
			t.Fatal(err)
		}
		st.add(Item{Text: "overdue", Next: start.Add(-3 * time.Hour)})
		rec := &recorder{now: time.Now}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go (&Loop{Store: st, MaxSleep: 24 * time.Hour}).Run(ctx, rec.deliver)
		synctest.Wait()

		got := rec.deliveries()
		if len(got) != 2 {
			t.Fatalf("%d deliveries, want 2: %+v", len(got), got)
		}
		if d := got[0]; d.c.Item.Text != "hourly" || !d.c.Decision.Deliver || d.c.Decision.Late != 10*time.Minute {
			t.Errorf("first delivery %q %+v, want the pending one, 10 min late", d.c.Item.Text, d.c.Decision)
		}
		if d := got[1]; d.c.Item.Text != "overdue" || !d.c.Decision.Missed || d.c.Decision.Late != 3*time.Hour || !d.c.Decision.Done {
			t.Errorf("second delivery %q %+v, want the overdue one, missed by 3 h", d.c.Item.Text, d.c.Decision)
		}
	})
}

// A daily 09:00 schedule in Berlin and a one-off set before the autumn
// change for after it, run by the loop on a clock set to that week.
func TestLoopAcrossTheChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := utc("2026-10-24 06:00:00") // 08:00 CEST
		start := time.Now()
		now := func() time.Time { return base.Add(time.Since(start)) }
		loc := berlin(t)
		st := newMemStore()
		first, spec, err := ParseWhen(When{Cron: "0 9 * * *"}, loc, now())
		if err != nil {
			t.Fatal(err)
		}
		st.add(Item{Text: "daily", Spec: spec, Zone: loc.String(), Next: first})
		once, _, err := ParseWhen(When{At: "2026-10-26 09:30"}, loc, now())
		if err != nil {
			t.Fatal(err)
		}
		st.add(Item{Text: "once", Zone: loc.String(), Next: once})
		rec := &recorder{now: now}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go (&Loop{Store: st, Now: now}).Run(ctx, rec.deliver)

		time.Sleep(3 * 24 * time.Hour)
		synctest.Wait()
		var got []string
		for _, d := range rec.deliveries() {
			got = append(got, d.c.Item.Text+" "+d.at.In(loc).Format("01-02 15:04 MST"))
			if d.c.Decision.Late != 0 {
				t.Errorf("%s delivered %v late", d.c.Key(), d.c.Decision.Late)
			}
		}
		want := []string{"daily 10-24 09:00 CEST", "daily 10-25 09:00 CET", "daily 10-26 09:00 CET", "once 10-26 09:30 CET"}
		if !slices.Equal(got, want) {
			t.Errorf("deliveries %v, want %v", got, want)
		}
	})
}
