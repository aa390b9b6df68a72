package adapterkit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestGroupGate: Go starts work until the group stops or the caller's
// context ends, and says whether it did.
func TestGroupGate(t *testing.T) {
	tests := []struct {
		name      string
		stopFirst bool
		cancelCtx bool
		want      bool
	}{
		{name: "running", want: true},
		{name: "stopped", stopFirst: true, want: false},
		{name: "context ended", cancelCtx: true, want: false},
		{name: "both", stopFirst: true, cancelCtx: true, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Group
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.stopFirst {
				g.Stop()
			}
			if tt.cancelCtx {
				cancel()
			}
			var ran atomic.Bool
			if got := g.Go(ctx, func() { ran.Store(true) }); got != tt.want {
				t.Errorf("Go = %v, want %v", got, tt.want)
			}
			g.Stop()
			if ran.Load() != tt.want {
				t.Errorf("ran = %v after Stop, want %v", ran.Load(), tt.want)
			}
			if !g.Stopping() {
				t.Error("Stopping = false after Stop")
			}
		})
	}
}

// TestGroupStopWaits: Stop returns only once every piece of work in
// flight has returned, and work started by work in flight before Stop
// counts too.
func TestGroupStopWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group
		ctx := t.Context()
		release := make(chan struct{})
		var done atomic.Int32
		for range 3 {
			g.Go(ctx, func() {
				<-release
				done.Add(1)
			})
		}
		g.Go(ctx, func() {
			g.Go(ctx, func() { <-release; done.Add(1) }) // nested, before Stop
		})
		synctest.Wait()
		stopped := make(chan struct{})
		go func() { g.Stop(); close(stopped) }()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("Stop returned with work in flight")
		default:
		}
		if !g.Stopping() {
			t.Error("Stopping = false while Stop waits")
		}
		if g.Go(ctx, func() { t.Error("work started while stopping") }) {
			t.Error("Go = true while stopping")
		}
		close(release)
		<-stopped
		if n := done.Load(); n != 4 {
			t.Errorf("Stop returned after %d of 4 pieces of work", n)
		}
		g.Stop() // again: returns at once
	})
}

// TestGroupConcurrentGoAndStop: under the race detector, Go racing Stop
// either runs its work before Stop returns or not at all.
func TestGroupConcurrentGoAndStop(t *testing.T) {
	for range 50 {
		var g Group
		var started, finished atomic.Int32
		var callers sync.WaitGroup
		for range 8 {
			callers.Go(func() {
				if g.Go(t.Context(), func() { finished.Add(1) }) {
					started.Add(1)
				}
			})
		}
		g.Stop()
		n := finished.Load()
		callers.Wait()
		if s := started.Load(); n != s {
			t.Fatalf("Stop returned with %d of %d started pieces of work finished", n, s)
		}
	}
}
