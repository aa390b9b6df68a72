package discord

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/chat"
)

// bucketKeys lists rl's buckets, through the same layout pruneBuckets uses.
func bucketKeys(t *testing.T, rl *discordgo.RateLimiter) []string {
	t.Helper()
	l, err := limiterLayout()
	if err != nil {
		t.Fatal(err)
	}
	rl.Lock()
	defer rl.Unlock()
	var keys []string
	for k := range l.bucketsOf(rl) {
		keys = append(keys, k)
	}
	return keys
}

// TestPruneBuckets: a bucket goes once its window is over and no request
// holds it; a bucket in use, or whose window is still open (a wait may be
// due), stays.
func TestPruneBuckets(t *testing.T) {
	tests := []struct {
		name       string
		resetAfter string // X-RateLimit-Reset-After of its last response; "" none
		held       bool   // a request holds it now
		wait       time.Duration
		kept       bool
	}{
		{name: "never answered", kept: false},
		{name: "window over", resetAfter: "1", wait: 2 * time.Second, kept: false},
		{name: "window open", resetAfter: "30", wait: 2 * time.Second, kept: true},
		{name: "window open, exhausted", resetAfter: "5.5", wait: 5 * time.Second, kept: true},
		{name: "held", held: true, kept: true},
		{name: "held, window over", resetAfter: "1", held: true, wait: 2 * time.Second, kept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rl := discordgo.NewRatelimiter()
				const key = "https://discord.com/api/v9/channels/1/messages"
				b := rl.LockBucket(key)
				h := http.Header{}
				if tt.resetAfter != "" {
					h.Set("X-RateLimit-Remaining", "0")
					h.Set("X-RateLimit-Reset-After", tt.resetAfter)
				}
				if err := b.Release(h); err != nil {
					t.Fatal(err)
				}
				if tt.held {
					rl.LockBucket(key)
					defer b.Unlock()
				}
				time.Sleep(tt.wait)
				left, err := pruneBuckets(rl, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: 1, false: 0}[tt.kept]; left != want || len(bucketKeys(t, rl)) != want {
					t.Errorf("%d buckets left, want %d", left, want)
				}
			})
		})
	}
}

// dmAPI answers what Send calls in a DM channel, on the bubble's clock
// and without a network: the channel, then the message, with rate-limit
// headers as Discord sends them.
type dmAPI struct{ calls atomic.Int64 }

func (d *dmAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	n := d.calls.Add(1)
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v9/"), "/")
	body := fmt.Sprintf(`{"id":%q,"type":1}`, segs[1])
	if r.Method == http.MethodPost {
		body = fmt.Sprintf(`{"id":"%d","channel_id":%q,"content":"hi"}`, 1_000_000+n, segs[1])
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK",
		Header: http.Header{"Content-Type": {"application/json"},
			"X-Ratelimit-Remaining": {"4"}, "X-Ratelimit-Reset-After": {"5"}},
		Body:    io.NopCloser(strings.NewReader(body)),
		Request: r,
	}, nil
}

// TestBucketsStayBounded: answering new people round after round, the
// rate limiter holds the routes of the last minutes only, not one per
// channel ever answered — on an adapter that only sends, as a replica
// receiving no shard does (the sweep runs on the sending path).
func TestBucketsStayBounded(t *testing.T) {
	const (
		rounds    = 30
		perRound  = 40               // new DM channels a round
		roundTime = 20 * time.Second // a round every 20 s
	)
	synctest.Test(t, func(t *testing.T) {
		a, err := New(Config{
			Token: "t", APIURL: "http://discord.invalid/api/v9",
			HTTPClient: &http.Client{Transport: &dmAPI{}},
			Logger:     slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		most := 0
		for round := range rounds {
			for i := range perRound {
				ch := fmt.Sprint(500_000 + round*perRound + i)
				if _, err := a.Send(ctx, chat.Thread{Platform: platform, Chat: ch}, chat.Out{Text: "hello"}); err != nil {
					t.Fatal(err)
				}
			}
			most = max(most, len(bucketKeys(t, a.s.Ratelimiter)))
			time.Sleep(roundTime)
			synctest.Wait()
		}
		// A route a channel (POST /channels/{id}/messages), for the
		// channels of the rounds since the last sweep and the round under
		// way.
		bound := perRound * (int(bucketSweep/roundTime) + 1)
		if most > bound {
			t.Errorf("up to %d buckets after %d channels, want ≤ %d", most, rounds*perRound, bound)
		}
		if most < perRound {
			t.Errorf("up to %d buckets: the test sent nothing?", most)
		}
	})
}
