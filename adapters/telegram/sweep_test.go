package telegram

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/store"
)

// TestSweepChainsForgetsOldEntries: reply-chain entries older than
// chainTTL are removed from a real store at start; newer ones and other
// keys stay.
func TestSweepChainsForgetsOldEntries(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := now.Add(-chainTTL - time.Hour)
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"), store.WithClock(func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := offlineAdapter(t, db)
	ctx := t.Context()
	if err := a.joinChain(ctx, -100, 1, 1); err != nil { // written 90 days and an hour ago
		t.Fatal(err)
	}
	mu.Lock()
	clock = now.Add(-time.Hour)
	mu.Unlock()
	if err := a.joinChain(ctx, -100, 2, 1); err != nil {
		t.Fatal(err)
	}
	if err := db.Set(ctx, "telegram:1000:offset", "5"); err != nil {
		t.Fatal(err)
	}

	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	a.now = func() time.Time { return now }
	go func() { defer close(done); a.sweepChains(sctx) }()
	deadline := time.Now().Add(15 * time.Second) // a hang, not a timing assertion
	for {
		if _, ok, err := a.chainOf(ctx, -100, 1); err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the old chain entry was never forgotten")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if root, ok, err := a.chainOf(ctx, -100, 2); err != nil || !ok || root != 1 {
		t.Fatalf("the recent chain entry: %d, %v, %v; want it kept", root, ok, err)
	}
	if _, ok, _ := db.Get(ctx, "telegram:1000:offset"); !ok {
		t.Fatal("the sweep removed the poll offset")
	}
}

// inProcessBotAPI answers the Bot API calls Run makes without a network,
// so that Run fits in a synctest bubble: getMe names testMe, getUpdates
// waits until its context ends (nothing is ever sent), and every other
// call succeeds.
type inProcessBotAPI struct{}

func (inProcessBotAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	var result string
	switch path.Base(r.URL.Path) {
	case "getMe":
		result = fmt.Sprintf(`{"id":%d,"is_bot":true,"first_name":"Parley","username":%q}`, testMe.ID, testMe.UserName)
	case "getUpdates":
		<-r.Context().Done()
		return nil, r.Context().Err()
	default:
		result = "true"
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(`{"ok":true,"result":` + result + `}`)),
		Request:    r,
	}, nil
}

// TestRunSweepsChainsAtStartAndDaily: Run forgets reply chains older than
// chainTTL when it starts and every chainSweep after, on the adapter's
// clock (synctest's here): an entry goes at the first sweep after it is
// chainTTL old, and other keys stay.
func TestRunSweepsChainsAtStartAndDaily(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemState()
		a, err := New(Config{
			Token: testToken, State: st, Logger: discard,
			HTTPClient:  &http.Client{Transport: inProcessBotAPI{}},
			PollTimeout: 1000 * time.Hour, // one getUpdates for the whole test
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		if err := a.joinChain(ctx, -100, 1, 1); err != nil {
			t.Fatal(err)
		}
		if err := st.Set(ctx, offsetKey, "5"); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx, newRecorder()) }()

		sweeps := func() []staleDelete {
			synctest.Wait() // Run is waiting: on getUpdates, and the sweep on its clock
			return st.staleDeletes()
		}
		if got := sweeps(); len(got) != 1 || got[0] != (staleDelete{chainPrefix, start.Add(-chainTTL)}) {
			t.Fatalf("at start: sweeps %v, want one of %s before %v", got, chainPrefix, start.Add(-chainTTL))
		}
		time.Sleep(chainSweep - time.Second)
		if got := sweeps(); len(got) != 1 {
			t.Fatalf("a second before a day passed: %d sweeps, want 1", len(got))
		}
		time.Sleep(time.Second)
		if got := sweeps(); len(got) != 2 || !got[1].before.Equal(start.Add(chainSweep-chainTTL)) {
			t.Fatalf("after a day: sweeps %v, want a second one", got)
		}

		days := int(chainTTL / chainSweep)
		time.Sleep(chainTTL - chainSweep) // the sweep at start+chainTTL
		if got := sweeps(); len(got) != days+1 {
			t.Fatalf("after %d days: %d sweeps, want %d", days, len(got), days+1)
		}
		if _, ok, _ := a.chainOf(ctx, -100, 1); !ok {
			t.Fatal("the chain entry went before it was chainTTL old")
		}
		time.Sleep(chainSweep)
		if got := sweeps(); len(got) != days+2 {
			t.Fatalf("after %d days: %d sweeps, want %d", days+1, len(got), days+2)
		}
		if _, ok, _ := a.chainOf(ctx, -100, 1); ok {
			t.Error("the chain entry outlived chainTTL by a sweep")
		}
		if st.get(offsetKey) != "5" {
			t.Error("the sweep removed the poll offset")
		}

		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v after cancel, want nil", err)
		}
	})
}
