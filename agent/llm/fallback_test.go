package llm

import (
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// scripted answers each call with the next of its errors (nil: an answer
// "ok from <name>"), and then with answers.
type scripted struct {
	name string
	mu   sync.Mutex
	errs []error
	text string // streamed before failing, when set
	n    int    // calls
}

func (s *scripted) Stream(context.Context, Request) iter.Seq2[Event, error] {
	s.mu.Lock()
	s.n++
	var err error
	if len(s.errs) > 0 {
		err, s.errs = s.errs[0], s.errs[1:]
	}
	s.mu.Unlock()
	return func(yield func(Event, error) bool) {
		if s.text != "" && !yield(Event{Kind: EventTextDelta, Text: s.text}, nil) {
			return
		}
		if err != nil {
			yield(Event{}, err)
			return
		}
		yield(Event{Kind: EventDone, Response: &Response{Text: "ok from " + s.name, Model: s.name}}, nil)
	}
}

func (s *scripted) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

var (
	errAuth     = &Error{Kind: KindAuth, Status: 401}
	errNotFound = &Error{Kind: KindBadRequest, Status: 404}
	errServer   = &Error{Kind: KindServer, Status: 503}
	errBad      = &Error{Kind: KindBadRequest, Status: 400}
	errOverflow = &Error{Kind: KindContextOverflow, Status: 400}
	errLongWait = &Error{Kind: KindRateLimit, Status: 429, RetryAfter: time.Hour}
	errShort    = &Error{Kind: KindRateLimit, Status: 429, RetryAfter: time.Second}
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func chain(primary, backup *scripted, now func() time.Time) *Fallback {
	return NewFallback([]Candidate{{primary.name, primary}, {backup.name, backup}},
		FallbackOptions{Now: now, Logger: quiet()})
}

// TestFallbackDecides: which failures move a call on at once, which after
// the retries (three calls in a row), which never.
func TestFallbackDecides(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		switchAt int // the call (1-based) that moves on; 0: none of three
	}{
		{"401 at once", errAuth, 1},
		{"404 at once", errNotFound, 1},
		{"rate limit asking an hour at once", errLongWait, 1},
		{"503 after the retries", errServer, 3},
		{"short rate limit after the retries", errShort, 3},
		{"400 never", errBad, 0},
		{"overflow never", errOverflow, 0},
		{"cancellation never", context.Canceled, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			primary := &scripted{name: "a/primary", errs: []error{tc.err, tc.err, tc.err}}
			backup := &scripted{name: "b/backup"}
			f := chain(primary, backup, time.Now)
			for call := 1; call <= 3; call++ {
				resp, err := Collect(f.Stream(t.Context(), Request{}))
				switch {
				case call == tc.switchAt:
					if err != nil || resp.Model != "b/backup" {
						t.Fatalf("call %d: %v, %+v; want the backup's answer", call, err, resp)
					}
					return
				case !errors.Is(err, tc.err):
					t.Fatalf("call %d: error %v, want %v returned for the caller to retry or report", call, err, tc.err)
				}
			}
			if backup.calls() != 0 {
				t.Errorf("the backup was called %d times", backup.calls())
			}
		})
	}
}

// TestFallbackBounded: when every model fails, each is tried once per
// call and the last failure is returned.
func TestFallbackBounded(t *testing.T) {
	primary := &scripted{name: "a/primary", errs: []error{errAuth, errAuth}}
	backup := &scripted{name: "b/backup", errs: []error{errNotFound, errNotFound}}
	f := chain(primary, backup, time.Now)
	var events []EventKind
	var err error
	for ev, e := range f.Stream(t.Context(), Request{}) {
		if e != nil {
			err = e
			break
		}
		events = append(events, ev.Kind)
	}
	if !errors.Is(err, errNotFound) || primary.calls() != 1 || backup.calls() != 1 || len(events) != 1 || events[0] != EventFallback {
		t.Fatalf("err %v, calls %d and %d, events %v; want one call each, one EventFallback, the backup's error",
			err, primary.calls(), backup.calls(), events)
	}
	// Both breakers are open: the next call tries the one that cools
	// down first — the primary, which opened first — and only it.
	if _, err := Collect(f.Stream(t.Context(), Request{})); !errors.Is(err, errAuth) || primary.calls() != 2 || backup.calls() != 1 {
		t.Fatalf("with every breaker open: err %v, calls %d and %d", err, primary.calls(), backup.calls())
	}
}

// TestFallbackVoidsStreamedText: text streamed by the failed model is
// followed by EventFallback naming the next model, so the consumer can
// drop it.
func TestFallbackVoidsStreamedText(t *testing.T) {
	primary := &scripted{name: "a/primary", errs: []error{errAuth}, text: "Hel"}
	backup := &scripted{name: "b/backup"}
	var got []Event
	for ev, err := range chain(primary, backup, time.Now).Stream(t.Context(), Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if len(got) != 3 || got[0].Text != "Hel" || got[1].Kind != EventFallback || got[1].Text != "b/backup" ||
		!errors.Is(got[1].Err, errAuth) || got[2].Response.Model != "b/backup" {
		t.Fatalf("events %+v", got)
	}
}

// TestBreakerCooldown: after a failure the primary is left alone for the
// cool-down, then tried again; a new failure opens it again, a success
// closes it and calls start on it once more.
func TestBreakerCooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := &scripted{name: "a/primary", errs: []error{errAuth, nil, errServer}}
		backup := &scripted{name: "b/backup"}
		f := chain(primary, backup, time.Now)
		answer := func() string {
			t.Helper()
			resp, err := Collect(f.Stream(t.Context(), Request{}))
			if err != nil {
				t.Fatal(err)
			}
			return resp.Model
		}
		if got := answer(); got != "b/backup" || primary.calls() != 1 {
			t.Fatalf("401: answered by %s after %d primary calls", got, primary.calls())
		}
		time.Sleep(time.Minute - time.Second)
		if got := answer(); got != "b/backup" || primary.calls() != 1 {
			t.Fatalf("within the cool-down: answered by %s, primary called %d times", got, primary.calls())
		}
		time.Sleep(time.Second)
		if got := answer(); got != "a/primary" || primary.calls() != 2 {
			t.Fatalf("after the cool-down: answered by %s, primary called %d times", got, primary.calls())
		}
		// Closed again: a 503 is the caller's to retry first.
		if _, err := Collect(f.Stream(t.Context(), Request{})); !errors.Is(err, errServer) {
			t.Fatalf("closed breaker: error %v, want the 503 back", err)
		}
	})
}

// TestBreakerHalfOpen: a failure on the trial after the cool-down opens
// the breaker again at once, without counting to three.
func TestBreakerHalfOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := &scripted{name: "a/primary", errs: []error{errAuth, errServer}}
		backup := &scripted{name: "b/backup"}
		f := chain(primary, backup, time.Now)
		Collect(f.Stream(t.Context(), Request{}))
		time.Sleep(time.Minute)
		resp, err := Collect(f.Stream(t.Context(), Request{}))
		if err != nil || resp.Model != "b/backup" || primary.calls() != 2 {
			t.Fatalf("trial failed with a 503: %v, %+v, primary called %d times; want the backup at once", err, resp, primary.calls())
		}
		Collect(f.Stream(t.Context(), Request{}))
		if primary.calls() != 2 {
			t.Errorf("primary called within its second cool-down")
		}
	})
}

// seen records the requests a provider was sent.
type seen struct {
	Provider
	mu   sync.Mutex
	reqs []Request
}

func (s *seen) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return s.Provider.Stream(ctx, req)
}

// TestFallbackToBlindModel: a call that moves to a model that cannot see
// sends it placeholders instead of the images (which would fail it), and
// leaves the caller's request and the seeing models' requests whole.
func TestFallbackToBlindModel(t *testing.T) {
	img := Image{Name: "shot.png", MIME: "image/png", Data: []byte("png"), Width: 4, Height: 3}
	req := Request{Messages: []Message{
		{Role: RoleUser, Text: "what is on it?", Images: []Image{img}},
	}}
	tests := []struct {
		name  string
		sees  func(string) bool
		blind bool // whether the fallback gets placeholders
	}{
		{"fallback cannot see", func(n string) bool { return n == "a" }, true},
		{"every model sees", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &seen{Provider: &scripted{name: "a", errs: []error{errAuth}}}
			b := &seen{Provider: &scripted{name: "b"}}
			f := NewFallback([]Candidate{{Name: "a", Provider: a}, {Name: "b", Provider: b}},
				FallbackOptions{Sees: tt.sees, Logger: slog.New(slog.DiscardHandler)})
			var answer string
			for ev, err := range f.Stream(t.Context(), req) {
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == EventDone {
					answer = ev.Response.Text
				}
			}
			if answer != "ok from b" {
				t.Fatalf("answer %q, want the fallback's", answer)
			}
			if got := a.reqs[0].Messages[0]; len(got.Images) != 1 {
				t.Errorf("the seeing primary got %d images", len(got.Images))
			}
			got := b.reqs[0].Messages[0]
			if tt.blind {
				if len(got.Images) != 0 || got.Text != "what is on it?\n[image shot.png, 4×3: "+whyFallbackBlind+"]" {
					t.Errorf("the blind fallback got %d images and text %q", len(got.Images), got.Text)
				}
			} else if len(got.Images) != 1 || got.Text != "what is on it?" {
				t.Errorf("a seeing fallback got %d images and text %q", len(got.Images), got.Text)
			}
			if len(req.Messages[0].Images) != 1 || req.Messages[0].Text != "what is on it?" {
				t.Error("the caller's request was changed")
			}
		})
	}
}
