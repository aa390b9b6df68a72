package changes

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestWaitForWakesOnNotify(t *testing.T) {
	f := New()
	var n atomic.Int32
	done := make(chan error, 1)
	go func() { done <- f.WaitFor(t.Context(), func() bool { return n.Load() == 3 }) }()
	for range 3 {
		n.Add(1)
		f.Notify()
	}
	if err := <-done; err != nil {
		t.Fatalf("WaitFor: %v", err)
	}
}

func TestWaitForEnds(t *testing.T) {
	never := func() bool { return false }
	t.Run("closed", func(t *testing.T) {
		f := New()
		f.Close()
		f.Close() // twice is fine
		if err := f.WaitFor(t.Context(), never); !errors.Is(err, ErrClosed) {
			t.Fatalf("WaitFor on a closed feed: %v", err)
		}
		if err := f.WaitFor(t.Context(), func() bool { return true }); err != nil {
			t.Fatalf("a condition that holds wins over Close: %v", err)
		}
	})
	t.Run("context", func(t *testing.T) {
		cause := errors.New("test over")
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(cause)
		if err := New().WaitFor(ctx, never); !errors.Is(err, cause) {
			t.Fatalf("WaitFor after ctx ended: %v, want its cause", err)
		}
	})
}
