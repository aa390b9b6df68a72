package bottest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
)

// checkPrivate: SendPrivate reaches that person alone (/memory, "not allowed").
func checkPrivate(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	alice, bob := h.User("alice"), h.User("bob")
	th := h.Thread(GroupThread, alice)
	const text = "conformance private note"
	if err := a.SendPrivate(ctx, th, alice, chat.Out{Text: text}); err != nil {
		t.Fatalf("SendPrivate: %v", noLimits(err))
	}
	if !anyContains(h.PrivateTo(alice), text) {
		t.Errorf("the recipient's private view %q lacks %q", h.PrivateTo(alice), text)
	}
	if anyContains(h.PrivateTo(bob), text) {
		t.Errorf("someone else was shown the private message")
	}
	if visibleContains(h.Visible(th), text) {
		t.Errorf("the private message is visible in the conversation: %s", describeVisible(h.Visible(th)))
	}
}

// checkRateLimit: a 429 comes back at once, as the one shape delivery
// understands, with the platform's retry-after: delivery coalesces frames
// while it backs off, which it cannot do while the adapter sleeps in a
// call.
func checkRateLimit(t *testing.T, newHarness func(*testing.T) Harness) {
	t.Run("send", func(t *testing.T) {
		h := newHarness(t)
		a := h.Adapter()
		startConfRun(t, a)
		th := h.Thread(GroupThread, h.User("alice"))
		h.RateLimitNext(OpSend, confRetryAfter)
		err := callPromptly(t, func(ctx context.Context) error {
			_, err := a.Send(ctx, th, chat.Out{Text: "conformance rate limited"})
			return err
		})
		expectRetryAfter(t, "Send", err)
		if vis := h.Visible(th); len(vis) != 0 {
			t.Errorf("a refused Send posted %s", describeVisible(vis))
		}
	})
	t.Run("edit", func(t *testing.T) {
		h := newHarness(t)
		a := h.Adapter()
		startConfRun(t, a)
		th := h.Thread(GroupThread, h.User("alice"))
		ref, err := a.Send(confContext(t), th, chat.Out{Text: "conformance before"})
		if err != nil {
			t.Fatalf("Send: %v", noLimits(err))
		}
		h.RateLimitNext(OpEdit, confRetryAfter)
		err = callPromptly(t, func(ctx context.Context) error {
			return a.Edit(ctx, ref, chat.Out{Text: "conformance after"})
		})
		expectRetryAfter(t, "Edit", err)
		expectOneVisible(t, h, th, ref.ID, "conformance before")
	})
}

// callPromptly runs call with a deadline far shorter than the retry-after
// the platform asked for, and returns its error. Only failure waits: a
// call that returns ends the wait at once.
func callPromptly(t *testing.T, call func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), confCallLimit)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	timer := time.NewTimer(confWait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			t.Fatalf("the call waited until its %v deadline (%v): it sleeps out the %v retry-after instead of returning it",
				confCallLimit, err, confRetryAfter)
		}
		return err
	case <-timer.C:
		t.Fatalf("the call did not return within %v of a %v deadline: it sleeps out the retry-after and ignores its context",
			confWait, confCallLimit)
		return nil
	}
}

// expectRetryAfter checks that err is the one 429 shape, carrying the
// retry-after the platform asked for.
func expectRetryAfter(t *testing.T, op string, err error) {
	t.Helper()
	d, ok := chat.RetryAfter(err)
	switch {
	case err == nil:
		t.Errorf("%s succeeded; the platform answered 429", op)
	case !ok:
		t.Errorf("%s returned %v (%T); want a *chat.RateLimitError, which chat.RetryAfter recognizes", op, err, err)
	case d <= 0:
		t.Errorf("%s: RetryAfter = %v, want > 0", op, d)
	case d < confRetryAfter/2 || d > 2*confRetryAfter:
		// A made-up default instead of the platform's figure either
		// hammers the platform or stalls the answer.
		t.Errorf("%s: RetryAfter = %v; the platform asked for %v", op, d, confRetryAfter)
	}
}

// checkRunStops: Run stops when its context ends; shutdown and tests
// depend on it.
func checkRunStops(t *testing.T, newHarness func(*testing.T) Harness) {
	t.Run("at once", func(t *testing.T) {
		h := newHarness(t)
		run := startConfRun(t, h.Adapter())
		run.stop(t)
	})
	t.Run("while receiving", func(t *testing.T) {
		h := newHarness(t)
		run := startConfRun(t, h.Adapter())
		alice := h.User("alice")
		ctx := confContext(t)
		if _, err := h.UserMessage(ctx, MessageSpec{Thread: h.Thread(DirectThread, alice), From: alice, Text: "are you there tokalive"}); err != nil {
			t.Fatalf("UserMessage: %v", err)
		}
		// Run is live once a message came through.
		if _, err := run.waitMessage(ctx, "tokalive"); err != nil {
			t.Fatalf("message never reached the handler: %v", err)
		}
		run.stop(t)
	})
}

// checkTyping: Typing never fails a turn; a platform without an
// indicator makes it a no-op (chat.Adapter).
func checkTyping(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	for _, kind := range confKinds {
		if err := a.Typing(ctx, h.Thread(kind, h.User("alice"))); err != nil {
			t.Errorf("Typing in a %v conversation: %v", kind, noLimits(err))
		}
	}
}
