package llm

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"
)

func TestPriceNanos(t *testing.T) {
	for _, tc := range []struct {
		name  string
		price Price
		use   Usage
		want  int64
	}{
		{"nothing", Price{Input: 3, Output: 15}, Usage{}, 0},
		// 1,000 prompt tokens at $0.40/M = $0.0004 = 400,000 nanodollars;
		// 500 answer tokens at $1.60/M = 800,000.
		{"plain", Price{Input: 0.4, Output: 1.6}, Usage{InputTokens: 1000, OutputTokens: 500}, 1_200_000},
		// 800 of the 1,000 read from the cache at $0.10/M.
		{"cached", Price{Input: 0.4, CachedInput: 0.1, Output: 1.6},
			Usage{InputTokens: 1000, CachedTokens: 800, OutputTokens: 500}, 200*400 + 800*100 + 500*1600},
		{"cached at the input price when none is given", Price{Input: 2, Output: 8},
			Usage{InputTokens: 1000, CachedTokens: 800}, 1000 * 2000},
		// Anthropic: 100 plain, 600 read, 300 written.
		{"cache writes", Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
			Usage{InputTokens: 1000, CachedTokens: 600, CacheWriteTokens: 300, OutputTokens: 10}, 100*3000 + 600*300 + 300*3750 + 10*15000},
		// Fractions of a nanodollar a token add up before rounding.
		{"fractions", Price{Input: 0.0375}, Usage{InputTokens: 3}, 113},
		{"free", Price{}, Usage{InputTokens: 1e6, OutputTokens: 1e6}, 0},
		{"cached beyond the prompt counts no negative tokens", Price{Input: 1, CachedInput: 1},
			Usage{InputTokens: 10, CachedTokens: 20}, 20 * 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.price.Nanos(tc.use); got != tc.want {
				t.Fatalf("Nanos = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestModelsPrice(t *testing.T) {
	mine := Price{Input: 1, Output: 2}
	m := Models{
		Prices: map[string]Price{"local/llama3.2": {}, "openai/gpt-4.1-mini": mine},
		Listed: map[string]bool{"openai": true, "anthropic": true},
	}
	for _, tc := range []struct {
		model  string
		want   Price
		priced bool
	}{
		{"openai/gpt-4o-mini", Price{Input: 0.15, CachedInput: 0.075, Output: 0.6}, true},
		{"openai/gpt-4o-mini-2024-07-18", Price{Input: 0.15, CachedInput: 0.075, Output: 0.6}, true},
		{"openai/gpt-4.1-mini", mine, true},                                               // the operator's price wins
		{"openai/gpt-4.1-nano", Price{Input: 0.1, CachedInput: 0.025, Output: 0.4}, true}, // not gpt-4.1's
		{"anthropic/claude-sonnet-4-5-20250929", Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}, true},
		{"local/llama3.2", Price{}, true}, // free, as configured
		{"local/gpt-4o", Price{}, false},  // a list price is the vendor's API's only
		{"openrouter/openai/gpt-4o", Price{}, false},
		{"openai/some-new-model", Price{}, false},
	} {
		t.Run(tc.model, func(t *testing.T) {
			info := m.Info(tc.model)
			if info.Price != tc.want || info.Priced != tc.priced {
				t.Fatalf("Info(%q) price %+v priced %v, want %+v %v", tc.model, info.Price, info.Priced, tc.want, tc.priced)
			}
		})
	}
}

// used answers every call with usage u.
type used struct{ u Usage }

func (p used) Stream(context.Context, Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		yield(Event{Kind: EventDone, Response: &Response{Text: "ok", Usage: p.u}}, nil)
	}
}

func TestUsageTrace(t *testing.T) {
	reg := NewRegistry()
	reg.UseModels(Models{Listed: map[string]bool{"openai": true}})
	u := Usage{InputTokens: 1000, CachedTokens: 800, OutputTokens: 500}
	reg.Register("openai", used{u})
	reg.Register("local", used{u})
	var mu sync.Mutex
	var got []CallCost
	ctx := WithUsageTrace(context.Background(), func(_ context.Context, c CallCost) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, c)
	})
	for _, name := range []string{"openai/gpt-4o-mini", "local/llama3.2"} {
		p, err := reg.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Collect(p.Stream(ctx, Request{})); err != nil {
			t.Fatal(err)
		}
	}
	// Without a trace in the context a call reports to nothing.
	p, _ := reg.Resolve("openai/gpt-4o")
	if _, err := Collect(p.Stream(context.Background(), Request{})); err != nil {
		t.Fatal(err)
	}
	want := []CallCost{
		{Model: "openai/gpt-4o-mini", Usage: u, Nanos: 200*150 + 800*75 + 500*600, Priced: true},
		{Model: "local/llama3.2", Usage: u},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("traced %+v, want %+v", got, want)
	}
}

func TestAudioNanos(t *testing.T) {
	p := Price{PerMinute: 0.006}
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{{0, 0}, {time.Minute, 6_000_000}, {30 * time.Second, 3_000_000}, {1500 * time.Millisecond, 200_000}} {
		if got := p.AudioNanos(tt.d); got != tt.want {
			t.Errorf("AudioNanos(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
	m := Models{Listed: map[string]bool{"openai": true}}
	if got, ok := m.Price("openai/whisper-1"); !ok || got.PerMinute != 0.006 {
		t.Errorf("whisper-1's list price = %+v, %v", got, ok)
	}
	if got, ok := m.Price("openai/gpt-4o-mini-transcribe"); !ok || got.PerMinute != 0.003 || got.Input != 0 {
		t.Errorf("gpt-4o-mini-transcribe's list price = %+v, %v", got, ok)
	}
}
