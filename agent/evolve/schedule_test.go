package evolve

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent/llm"
)

func TestPlan(t *testing.T) {
	now := t0.Add(30 * 24 * time.Hour)
	c := ScheduleConfig{MaxScopes: 2}
	tests := []struct {
		name string
		acts []Activity
		want []string
	}{
		{"warranted", []Activity{{Scope: "a", LastReflected: now.Add(-10 * time.Hour), LastActivity: now.Add(-time.Hour), Best: 0.9}}, []string{"a"}},
		{"below the threshold", []Activity{{Scope: "a", LastReflected: now.Add(-10 * time.Hour), LastActivity: now.Add(-time.Hour), Best: 0.5}}, nil},
		{"the dirty gate: nothing new", []Activity{{Scope: "a", LastReflected: now.Add(-10 * 24 * time.Hour), LastActivity: now.Add(-11 * 24 * time.Hour), Best: 0.9}}, nil},
		{"in its cooldown", []Activity{{Scope: "a", LastReflected: now.Add(-time.Hour), LastActivity: now.Add(-time.Minute), Best: 0.9}}, nil},
		{"forced after 7 days of activity", []Activity{{Scope: "a", LastReflected: now.Add(-8 * 24 * time.Hour), LastActivity: now.Add(-time.Hour), Best: 0.1}}, []string{"a"}},
		{"never reflected, active for 7 days", []Activity{{Scope: "a", Since: now.Add(-8 * 24 * time.Hour), LastActivity: now.Add(-time.Hour), Best: 0}}, []string{"a"}},
		{"never reflected, active for a day", []Activity{{Scope: "a", Since: now.Add(-24 * time.Hour), LastActivity: now.Add(-time.Hour), Best: 0.2}}, nil},
		{"never reflected, new, warranted", []Activity{{Scope: "a", LastActivity: now.Add(-time.Hour), Best: 0.8}}, []string{"a"}},
		{"the cap keeps the most urgent", []Activity{
			{Scope: "low", LastActivity: now.Add(-time.Hour), Best: 0.7},
			{Scope: "high", LastActivity: now.Add(-time.Hour), Best: 0.9},
			{Scope: "mid", LastActivity: now.Add(-time.Hour), Best: 0.8},
		}, []string{"high", "mid"}},
	}
	for _, tt := range tests {
		if got := plan(tt.acts, now, c.withDefaults(), false); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Plan = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// fakeActivity is an ActivityStore over runs kept in memory: a scope's
// activity is its newest run, and its best score since its reflection.
type fakeActivity struct {
	mu        sync.Mutex
	runs      map[string][]Run
	reflected map[string]time.Time
}

func (f *fakeActivity) Activity(_ context.Context, w Weights) ([]Activity, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Activity
	for scope, runs := range f.runs {
		a := Activity{Scope: scope, LastReflected: f.reflected[scope]}
		for _, r := range runs {
			a.LastActivity = maxTime(a.LastActivity, r.At)
			if r.At.After(a.LastReflected) {
				a.Best = max(a.Best, Score(r.Signals, w))
				if a.Since.IsZero() || r.At.Before(a.Since) {
					a.Since = r.At
				}
			}
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Activity) int { return compareStrings(a.Scope, b.Scope) })
	return out, nil
}

func (f *fakeActivity) MarkReflected(_ context.Context, scope string, t time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reflected[scope] = t
	return nil
}

func (f *fakeActivity) add(scope string, at time.Time, s Signals) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs[scope] = append(f.runs[scope], Run{Scope: scope, At: at, Signals: s})
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type recordingReflector struct {
	mu    sync.Mutex
	calls []string
}

func (r *recordingReflector) Reflect(_ context.Context, scope string, _ *Allowance) ([]Change, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, scope)
	return nil, nil
}

func (r *recordingReflector) took() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// The scheduler in time: a cycle every 12 h; a corrected run is reflected
// on at the next cycle, once; a storm of network errors never; a quiet
// scope never; after a restart (a new scheduler over the same store) the
// stored times still hold.
func TestSchedulerCycles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		st := &fakeActivity{runs: map[string][]Run{}, reflected: map[string]time.Time{}}
		ref := &recordingReflector{}
		newScheduler := func() *Scheduler {
			return &Scheduler{Store: st, Reflector: ref, Config: ScheduleConfig{Every: 12 * time.Hour, Cooldown: 4 * time.Hour}}
		}
		ctx, cancel := context.WithCancel(t.Context())
		s := newScheduler()
		go s.Run(ctx)

		st.add("team", start.Add(time.Hour), Signals{Corrected: true})
		st.add("storm", start.Add(time.Hour), Signals{TransientErrors: 40, ToolCalls: 6})
		st.add("quiet", start.Add(-30*24*time.Hour), Signals{Corrected: true})
		st.MarkReflected(t.Context(), "quiet", start.Add(-29*24*time.Hour)) // reflected since: nothing new
		time.Sleep(12*time.Hour + time.Minute)
		synctest.Wait()
		if got := ref.took(); !slices.Equal(got, []string{"team"}) {
			t.Fatalf("first cycle reflected on %v, want [team]", got)
		}
		time.Sleep(12 * time.Hour)
		synctest.Wait()
		if got := ref.took(); len(got) != 1 {
			t.Fatalf("nothing new, yet reflected again: %v", got)
		}
		cancel()

		// A restart: the stored time keeps "team" from reflecting again;
		// a new correction makes it due at the next cycle.
		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		go newScheduler().Run(ctx)
		st.add("team", time.Now(), Signals{Corrected: true})
		time.Sleep(12*time.Hour + time.Minute)
		synctest.Wait()
		if got := ref.took(); !slices.Equal(got, []string{"team", "team"}) {
			t.Fatalf("after a restart and a new correction: %v", got)
		}
		// The storm is forced once a week has passed with activity.
		time.Sleep(7 * 24 * time.Hour)
		synctest.Wait()
		if got := ref.took(); !slices.Contains(got, "storm") || slices.Contains(got, "quiet") {
			t.Fatalf("after a week: %v (storm forced, quiet never)", got)
		}
	})
}

// spendingReflector spends calls model calls of tokens tokens each, a
// while apart, as a reflection would.
type spendingReflector struct {
	calls, tokens int
	took          time.Duration
}

func (r *spendingReflector) Reflect(ctx context.Context, _ string, a *Allowance) ([]Change, error) {
	var changes []Change
	for range r.calls {
		if !a.Left(time.Now()) {
			return changes, ErrBudget
		}
		select {
		case <-time.After(r.took):
		case <-ctx.Done():
			return changes, ctx.Err()
		}
		a.spend(llm.Request{}, llm.Response{Usage: llm.Usage{InputTokens: r.tokens}})
		changes = append(changes, Change{Action: "patched", Skill: "x"})
	}
	return changes, nil
}

// A cycle's budget — calls, tokens, wall time — stops it: the scope cut
// short keeps its changes and counts as reflected; the scopes not reached
// wait for the next cycle.
func TestCycleBudget(t *testing.T) {
	tests := []struct {
		name   string
		budget Budget
		ref    spendingReflector
		want   []Reflected // Changes counted only
		marked []string
	}{
		{"calls", Budget{Calls: 3}, spendingReflector{calls: 2, tokens: 10},
			[]Reflected{{Scope: "a", Calls: 2, Tokens: 20}, {Scope: "b", Calls: 1, Tokens: 10, Err: ErrBudget}}, []string{"a", "b"}},
		{"tokens", Budget{Tokens: 2500}, spendingReflector{calls: 2, tokens: 1000},
			[]Reflected{{Scope: "a", Calls: 2, Tokens: 2000}, {Scope: "b", Calls: 1, Tokens: 1000, Err: ErrBudget}}, []string{"a", "b"}},
		{"wall time", Budget{Time: 50 * time.Minute}, spendingReflector{calls: 2, tokens: 10, took: 20 * time.Minute},
			[]Reflected{{Scope: "a", Calls: 2, Tokens: 20}, {Scope: "b", Calls: 0, Tokens: 0, Err: context.DeadlineExceeded}}, []string{"a"}},
		{"room for all", Budget{}, spendingReflector{calls: 2, tokens: 10},
			[]Reflected{{Scope: "a", Calls: 2, Tokens: 20}, {Scope: "b", Calls: 2, Tokens: 20}, {Scope: "c", Calls: 2, Tokens: 20}}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := &fakeActivity{runs: map[string][]Run{}, reflected: map[string]time.Time{}}
				for _, scope := range []string{"a", "b", "c"} {
					st.add(scope, time.Now().Add(-time.Hour), Signals{Corrected: true})
				}
				ref := tt.ref
				s := &Scheduler{Store: st, Reflector: &ref, Config: ScheduleConfig{Budget: tt.budget}}
				done := s.Cycle(t.Context(), time.Now(), "", false)
				if len(done) != len(tt.want) {
					t.Fatalf("reflected %+v, want %+v", done, tt.want)
				}
				for i, r := range done {
					w := tt.want[i]
					if r.Scope != w.Scope || r.Calls != w.Calls || r.Tokens != w.Tokens || !errors.Is(r.Err, w.Err) || len(r.Changes) != w.Calls {
						t.Errorf("scope %d: %+v, want %+v", i, r, w)
					}
				}
				var marked []string
				for scope := range st.reflected {
					marked = append(marked, scope)
				}
				slices.Sort(marked)
				if !slices.Equal(marked, tt.marked) {
					t.Errorf("marked reflected: %v, want %v", marked, tt.marked)
				}
			})
		})
	}
}

// usageProvider answers every call at once with usage of in input tokens.
type usageProvider struct{ in int }

func (p usageProvider) Stream(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		yield(llm.Event{Kind: llm.EventDone, Response: &llm.Response{Usage: llm.Usage{InputTokens: p.in}}}, nil)
	}
}

// callingReflector makes one call of each of its models, and fails if
// told to.
type callingReflector struct {
	models []llm.Provider
	fail   error
}

func (r callingReflector) Reflect(ctx context.Context, _ string, a *Allowance) ([]Change, error) {
	for _, m := range r.models {
		resp, err := llm.Collect(m.Stream(ctx, llm.Request{}))
		if err != nil {
			return nil, err
		}
		a.spend(llm.Request{}, *resp)
	}
	if r.fail != nil {
		return nil, r.fail
	}
	return []Change{{Action: "created", Skill: "deploy"}}, nil
}

type memLog struct {
	mu   sync.Mutex
	recs []ReflectionRecord
}

func (m *memLog) RecordReflection(_ context.Context, r ReflectionRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return nil
}

func (m *memLog) Reflections(context.Context, int) ([]ReflectionRecord, error) { return m.recs, nil }

// Each reflection is kept with what it cost: its priced calls summed in
// money, the unpriced counted, every call passed to Spent for its scope,
// a failure kept with its reason, and Done told of each.
func TestCycleRecordsReflections(t *testing.T) {
	reg := llm.NewRegistry()
	reg.UseModels(llm.Models{Prices: map[string]llm.Price{"openai/priced": {Input: 2}}}) // $2 a million: 2,000 nanos a token
	reg.Register("openai", usageProvider{in: 1000})
	priced, _ := reg.Resolve("openai/priced")
	free, _ := reg.Resolve("openai/free")
	tests := []struct {
		name string
		ref  callingReflector
		want ReflectionRecord
	}{
		{"priced and unpriced", callingReflector{models: []llm.Provider{priced, priced, free}},
			ReflectionRecord{Scope: "a", Changes: 1, Calls: 3, Tokens: 3000, Nanos: 4_000_000, Unpriced: 1}},
		{"failed", callingReflector{models: []llm.Provider{priced}, fail: errors.New("model down")},
			ReflectionRecord{Scope: "a", Calls: 1, Tokens: 1000, Nanos: 2_000_000, Err: "model down"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
			st := &fakeActivity{runs: map[string][]Run{}, reflected: map[string]time.Time{}}
			st.add("a", now.Add(-time.Hour), Signals{Corrected: true})
			log := &memLog{}
			var spent []string
			var told []Reflected
			s := &Scheduler{Store: st, Reflector: tt.ref, Log: log, Now: func() time.Time { return now },
				Spent: func(_ context.Context, scope string, c llm.CallCost) { spent = append(spent, scope+" "+c.Model) },
				Done:  func(_ context.Context, r Reflected) { told = append(told, r) }}
			s.Cycle(t.Context(), now, "", false)
			want := tt.want
			want.At = now
			if len(log.recs) != 1 || log.recs[0] != want {
				t.Errorf("kept %+v, want %+v", log.recs, want)
			}
			if len(spent) != len(tt.ref.models) || spent[0] != "a openai/priced" {
				t.Errorf("Spent told %v", spent)
			}
			if len(told) != 1 || told[0].Scope != "a" || told[0].Nanos != want.Nanos {
				t.Errorf("Done told %+v", told)
			}
		})
	}
}
