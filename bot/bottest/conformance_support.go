package bottest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
)

// confContext bounds a check's calls and waits; it only ever ends a
// failing test.
func confContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), confWait)
	t.Cleanup(cancel)
	return ctx
}

// noLimits explains a rate limit on a call the suite did not provoke.
func noLimits(err error) error {
	if _, ok := chat.RetryAfter(err); ok {
		return fmt.Errorf("%w (the fake rate-limited the suite: newHarness must turn the fake's own limits off)", err)
	}
	return err
}

// confRun is the adapter's Run in the background, handing events to a
// confHandler.
type confRun struct {
	rec      *confHandler
	cancel   context.CancelFunc
	stopping atomic.Bool
	done     chan struct{}
	err      error // Run's result; read after done is closed
	early    bool  // Run returned before stop
	once     sync.Once
}

// startConfRun starts a.Run and stops it when the test ends, if stop has not.
func startConfRun(t *testing.T, a chat.Adapter) *confRun {
	// Not t.Context(): that ends before cleanups run, and stop must tell
	// a Run that quit by itself from one that was stopped.
	ctx, cancel := context.WithCancel(context.Background())
	r := &confRun{rec: newConfHandler(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = a.Run(ctx, r.rec)
		r.early = !r.stopping.Load()
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels Run's context and waits for Run to return.
func (r *confRun) stop(t *testing.T) {
	t.Helper()
	r.once.Do(func() {
		r.stopping.Store(true)
		r.cancel()
		timer := time.NewTimer(confWait)
		defer timer.Stop()
		select {
		case <-r.done:
		case <-timer.C:
			t.Errorf("Run did not return within %v of its context being cancelled", confWait)
			return
		}
		switch {
		case r.early:
			t.Errorf("Run returned before its context ended: %v", r.err)
		case r.err != nil && !errors.Is(r.err, context.Canceled):
			// The router ignores what Run returns after cancellation.
			t.Logf("Run returned %v after cancellation", r.err)
		}
	})
}

// waitMessage returns the first message whose text has the word token.
func (r *confRun) waitMessage(ctx context.Context, token string) (chat.Message, error) {
	var m chat.Message
	err := r.wait(ctx, func(rec *confHandler) bool {
		for _, x := range rec.msgs {
			if hasWord(x.Text, token) {
				m = x
				return true
			}
		}
		return false
	})
	return m, err
}

// messages returns every message whose text has the word token.
func (r *confRun) messages(token string) []chat.Message {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	var out []chat.Message
	for _, m := range r.rec.msgs {
		if hasWord(m.Text, token) {
			out = append(out, m)
		}
	}
	return out
}

// waitAction returns the i-th action (from 0) the handler received.
func (r *confRun) waitAction(ctx context.Context, i int) (confAction, error) {
	var a confAction
	err := r.wait(ctx, func(rec *confHandler) bool {
		if len(rec.acts) > i {
			a = rec.acts[i]
			return true
		}
		return false
	})
	return a, err
}

// wait blocks until found reports true, Run ends on its own, or ctx ends.
func (r *confRun) wait(ctx context.Context, found func(*confHandler) bool) error {
	for {
		r.rec.mu.Lock()
		ok, changed := found(r.rec), r.rec.changed
		r.rec.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-r.done:
			// One last look: the event may have landed just before.
			r.rec.mu.Lock()
			ok := found(r.rec)
			r.rec.mu.Unlock()
			if ok {
				return nil
			}
			if r.early {
				return fmt.Errorf("Run returned on its own: %v", r.err)
			}
			return errors.New("Run was stopped")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// confAction is a click and what answering the clicker returned.
type confAction struct {
	act chat.Action
	err error
}

// confHandler is the Handler given to Run: it records and returns at once,
// like the router.
type confHandler struct {
	mu       sync.Mutex
	msgs     []chat.Message
	acts     []confAction
	onAction func(context.Context, chat.Action) error
	changed  chan struct{} // closed and replaced on every event
}

func newConfHandler() *confHandler { return &confHandler{changed: make(chan struct{})} }

func (r *confHandler) setOnAction(f func(context.Context, chat.Action) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onAction = f
}

func (r *confHandler) HandleMessage(_ context.Context, m chat.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	r.notify()
	return nil
}

func (r *confHandler) HandleAction(ctx context.Context, a chat.Action) error {
	r.mu.Lock()
	f := r.onAction
	r.mu.Unlock()
	var err error
	if f != nil {
		err = f(ctx, a)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acts = append(r.acts, confAction{act: a, err: err})
	r.notify()
	return nil
}

// HandleCommand accepts commands; no check sends any.
func (r *confHandler) HandleCommand(context.Context, chat.Command) error { return nil }

// notify wakes waiters; called with r.mu held.
func (r *confHandler) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// confText returns n characters of plain ASCII words: no markup, nothing
// to escape, no leading or trailing space, measured the same everywhere.
func confText(n int) string {
	const collapseSpace = "lorem ipsum dolor sit amet consectetur adipiscing elit "
	b := []byte(strings.Repeat(collapseSpace, n/len(collapseSpace)+1)[:n])
	if n > 0 && b[n-1] == ' ' {
		b[n-1] = 'x'
	}
	return string(b)
}

// confButtonData returns an n-byte ASCII payload shaped like an approval's.
func confButtonData(n int) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	s := "a:conformance:" + strings.Repeat(alphabet, n/len(alphabet)+1)
	return s[:n]
}

// collapseSpace collapses whitespace, so that a removed mention may leave its
// space behind.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func hasWord(s, w string) bool { return slices.Contains(strings.Fields(s), w) }

func visibleByID(vis []Visible, id string) (Visible, bool) {
	for _, v := range vis {
		if v.ID == id {
			return v, true
		}
	}
	return Visible{}, false
}

// anyContains reports whether any of texts has text in it: an adapter may add
// to a private answer (an icon, a prefix), but not drop it.
func anyContains(texts []string, text string) bool {
	return slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, text) })
}

// visibleContains reports whether any message in vis has text in it.
func visibleContains(vis []Visible, text string) bool {
	return slices.ContainsFunc(vis, func(v Visible) bool { return strings.Contains(v.Text, text) })
}

func sameVisible(a, b []Visible) bool {
	return slices.EqualFunc(a, b, func(x, y Visible) bool {
		return x.ID == y.ID && x.Text == y.Text && slices.Equal(x.Buttons, y.Buttons)
	})
}

// describeVisible summarizes messages for failure output; long texts are cut.
func describeVisible(vis []Visible) string {
	if len(vis) == 0 {
		return "no messages"
	}
	parts := make([]string, len(vis))
	for i, v := range vis {
		text := v.Text
		if n := utf8.RuneCountInString(text); n > 60 {
			r := []rune(text)
			text = fmt.Sprintf("%s… (%d characters)", string(r[:60]), n)
		}
		parts[i] = fmt.Sprintf("%s %q", v.ID, text)
		if len(v.Buttons) > 0 {
			parts[i] += fmt.Sprintf(" buttons %q", v.Buttons)
		}
	}
	return fmt.Sprintf("%d message(s): %s", len(vis), strings.Join(parts, "; "))
}
