package discord_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/chat"
)

// unreachableGateway is the REST API of a Discord that cannot be reached:
// GET /gateway fails as fail says, on the bubble's clock, without a
// network, so that Run fits in a synctest bubble. It records when each
// attempt came.
type unreachableGateway struct {
	fail func(r *http.Request) (*http.Response, error)

	mu       sync.Mutex
	attempts []time.Duration // since start
	start    time.Time
}

func (g *unreachableGateway) RoundTrip(r *http.Request) (*http.Response, error) {
	g.mu.Lock()
	g.attempts = append(g.attempts, time.Since(g.start))
	g.mu.Unlock()
	return g.fail(r)
}

func (g *unreachableGateway) times() []time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.attempts)
}

func answer(status int, body string) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: status, Status: http.StatusText(status),
			Header:  http.Header{"Content-Type": {"application/json"}},
			Body:    io.NopCloser(strings.NewReader(body)),
			Request: r,
		}, nil
	}
}

// TestRunRetriesOpenWithBackoff: while the gateway cannot be reached, Run
// tries again after 1 s, then twice as long each time up to 30 s, on the
// adapter's clock (synctest's here), until its context ends; a refused
// token ends it at once.
func TestRunRetriesOpenWithBackoff(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		fail    func(*http.Request) (*http.Response, error)
		wait    time.Duration // how long the test lets Run try
		want    []time.Duration
		wantErr error
	}{
		{
			name: "unreachable",
			fail: func(*http.Request) (*http.Response, error) { return nil, errors.New("dial tcp: connection refused") },
			wait: 100 * s,
			want: []time.Duration{0, 1 * s, 3 * s, 7 * s, 15 * s, 31 * s, 61 * s, 91 * s}, wantErr: context.Canceled,
		},
		{
			name: "bad gateway",
			fail: answer(http.StatusBadGateway, `{"message":"bad gateway"}`),
			wait: 10 * s,
			want: []time.Duration{0, 1 * s, 3 * s, 7 * s}, wantErr: context.Canceled,
		},
		{
			name: "token refused",
			fail: answer(http.StatusUnauthorized, `{"message":"401: Unauthorized","code":0}`),
			wait: time.Hour,
			want: []time.Duration{0}, wantErr: chat.ErrAuth,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gw := &unreachableGateway{fail: tt.fail, start: time.Now()}
				a, err := discord.New(discord.Config{
					Token: "t", APIURL: "http://discord.invalid/api/v9",
					HTTPClient: &http.Client{Transport: gw},
					Logger:     slog.New(slog.DiscardHandler),
				})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- a.Run(ctx, nopHandler{}) }()

				time.Sleep(tt.wait)
				synctest.Wait()
				if got := gw.times(); !slices.Equal(got, tt.want) {
					t.Errorf("attempts at %v, want %v", got, tt.want)
				}
				cancel()
				if err := <-done; !errors.Is(err, tt.wantErr) {
					t.Errorf("Run = %v, want %v", err, tt.wantErr)
				}
			})
		})
	}
}

type nopHandler struct{}

func (nopHandler) HandleMessage(context.Context, chat.Message) error { return nil }
func (nopHandler) HandleAction(context.Context, chat.Action) error   { return nil }
func (nopHandler) HandleCommand(context.Context, chat.Command) error { return nil }

// TestRunWaitsOnConfigSleep: the reconnect backoff waits on Config.Sleep,
// not on a timer of its own, so a test's clock sees every wait.
func TestRunWaitsOnConfigSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d) // Run's goroutine only
		if len(waits) == 8 {
			cancel()
		}
		return ctx.Err()
	}
	gw := &unreachableGateway{fail: func(*http.Request) (*http.Response, error) { return nil, errors.New("connection refused") }}
	a, err := discord.New(discord.Config{
		Token: "t", APIURL: "http://discord.invalid/api/v9",
		HTTPClient: &http.Client{Transport: gw},
		Logger:     slog.New(slog.DiscardHandler),
		Sleep:      sleep,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Run(ctx, nopHandler{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	s := time.Second
	if want := []time.Duration{1 * s, 2 * s, 4 * s, 8 * s, 16 * s, 30 * s, 30 * s, 30 * s}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
}
