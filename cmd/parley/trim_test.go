package main

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"
)

func TestTrimmerTrimsOncePerBusySpell(t *testing.T) {
	// The heap's cumulative allocations at each look: start-up, then
	// quiet, quiet, a busy spell of two looks, quiet, quiet, busy, quiet.
	seen := []uint64{0, 10, 20, 5_000_000, 9_000_000, 9_000_010, 9_000_020, 12_000_000, 12_000_010}
	look := -1
	var trims []int
	tr := trimmer{
		every: time.Second,
		quiet: 1 << 10,
		sleep: func(context.Context, time.Duration) error {
			if look == len(seen)-1 {
				return context.Canceled
			}
			return nil
		},
		allocated: func() uint64 { look++; return seen[look] },
		trim:      func(context.Context) { trims = append(trims, look) },
	}
	var settled []int
	tr.settled = func() { settled = append(settled, look) }
	tr.run(t.Context())
	// Once start-up settles, and once after each busy spell.
	if want := []int{1, 5, 8}; !slices.Equal(trims, want) {
		t.Errorf("trimmed at looks %v, want %v", trims, want)
	}
	if want := []int{1}; !slices.Equal(settled, want) {
		t.Errorf("settled at looks %v, want %v: once, at the first trim", settled, want)
	}
}

type releaser struct{ calls int }

func (r *releaser) ReleaseMemory(context.Context) error {
	r.calls++
	return errors.New("busy")
}

// TestTrimmerReleasesTheStore: a trim hands back the store's caches too,
// when the store can; a store that cannot, or fails to, still gets the Go
// heap trimmed.
func TestTrimmerReleasesTheStore(t *testing.T) {
	r := &releaser{}
	newTrimmer(r, nil, slog.New(slog.DiscardHandler)).trim(t.Context())
	if r.calls != 1 {
		t.Errorf("ReleaseMemory called %d times by one trim, want 1", r.calls)
	}
	newTrimmer(struct{}{}, nil, slog.New(slog.DiscardHandler)).trim(t.Context()) // must not panic
}

// TestTrimmerSettlesWhileBusy: start-up counts as over by look settleBy
// even when Parley has been busy since it started, and once only.
func TestTrimmerSettlesWhileBusy(t *testing.T) {
	look := 0
	var settled, trims []int
	tr := trimmer{
		every: time.Second,
		quiet: 1 << 10,
		sleep: func(context.Context, time.Duration) error {
			if look == 12 {
				return context.Canceled
			}
			return nil
		},
		// Busy at every look but the last two.
		allocated: func() uint64 {
			look++
			if look >= 11 {
				return 12 << 20
			}
			return uint64(look) << 20
		},
		trim:     func(context.Context) { trims = append(trims, look) },
		settled:  func() { settled = append(settled, look) },
		settleBy: 4,
	}
	tr.run(t.Context())
	if want := []int{4}; !slices.Equal(settled, want) {
		t.Errorf("settled at looks %v, want %v: at settleBy, though busy", settled, want)
	}
	if want := []int{12}; !slices.Equal(trims, want) {
		t.Errorf("trimmed at looks %v, want %v: once quiet", trims, want)
	}
}
