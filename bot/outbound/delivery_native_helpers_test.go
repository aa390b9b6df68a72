package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// streamOpts choose what the delivery sees of the streaming fake.
type streamOpts struct {
	noRef    bool // streams tell their ref only when they finish (no chat.RefStream)
	noCloser bool // the adapter is no chat.StreamCloser
	// shower, when set, makes the adapter a chat.StatusShower recording
	// there what it is asked to show.
	shower *statusLog
}

// newStreamDL is newDL on the streaming fake.
func newStreamDL(t testing.TB, caps chat.Capabilities, fakeCfg bottest.Config, o streamOpts, mod func(*outbound.DeliveryConfig)) (*dl, *bottest.Streaming) {
	t.Helper()
	fakeCfg.Capabilities = caps
	s := bottest.NewStreaming(fakeCfg)
	wrap := func(rf *refsFirst) chat.Adapter {
		sa := &streamingAdapter{refsFirst: rf, s: s, noRef: o.noRef}
		if o.shower != nil {
			o.shower.s = s
			return showingAdapter{closingAdapter{sa}, o.shower}
		}
		if o.noCloser {
			return sa
		}
		return closingAdapter{sa}
	}
	return newDLOn(t, s.Adapter, s, wrap, mod), s
}

// streamingAdapter extends refsFirst to native streams: a stream's ref,
// once the delivery can know it, must be in the outbox before the next
// call.
type streamingAdapter struct {
	*refsFirst
	s     *bottest.Streaming
	noRef bool
}

func (a *streamingAdapter) StreamsIn(t chat.Thread) bool { return a.s.StreamsIn(t) }

func (a *streamingAdapter) StartStream(ctx context.Context, t chat.Thread, u chat.User) (chat.Stream, error) {
	a.check("StartStream", t)
	st, err := a.s.StartStream(ctx, t, u)
	if err != nil {
		return nil, err
	}
	cs := &checkedStream{a: a.refsFirst, s: st, t: t}
	if a.noRef {
		return cs, nil
	}
	a.remember(t, st.(chat.RefStream).Ref().ID)
	return checkedRefStream{cs}, nil
}

type checkedStream struct {
	a *refsFirst
	s chat.Stream
	t chat.Thread
}

func (c *checkedStream) Append(ctx context.Context, delta string) error {
	c.a.check("Append", c.t)
	return c.s.Append(ctx, delta)
}

func (c *checkedStream) Finish(ctx context.Context, final chat.Out) (chat.MessageRef, error) {
	c.a.check("Finish", c.t)
	ref, err := c.s.Finish(ctx, final)
	if ref.ID != "" {
		c.a.remember(c.t, ref.ID)
	}
	return ref, err
}

type checkedRefStream struct{ *checkedStream }

func (c checkedRefStream) Ref() chat.MessageRef { return c.s.(chat.RefStream).Ref() }

type closingAdapter struct{ *streamingAdapter }

func (a closingAdapter) CloseStream(ctx context.Context, ref chat.MessageRef) error {
	a.check("CloseStream", ref.Thread)
	return a.s.CloseStream(ctx, ref)
}

// statusLog records the statuses a chat.StatusShower is asked to show, each
// with the text the stream had appended by then.
type statusLog struct {
	s     *bottest.Streaming
	mu    sync.Mutex
	shown []string // "status after \"appended\""
}

func (l *statusLog) entries() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.shown)
}

type showingAdapter struct {
	closingAdapter
	log *statusLog
}

func (a showingAdapter) ShowStatus(_ context.Context, _ chat.Thread, status string) error {
	a.log.mu.Lock()
	defer a.log.mu.Unlock()
	a.log.shown = append(a.log.shown, fmt.Sprintf("%s after %q", status, appended(a.log.s)))
	return nil
}

// streamCalls counts the calls of op, refused ones included.
func streamCalls(s *bottest.Streaming, op bottest.Op) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Op == op {
			n++
		}
	}
	return n
}

// appended returns the text of the appends that took effect, in order.
func appended(s *bottest.Streaming) string {
	var b strings.Builder
	for _, c := range s.Appends() {
		b.WriteString(c.Out.Text)
	}
	return b.String()
}

// checkStreamCalls fails t if a stream call failed for another reason
// than an injected fault: a refusal for length, an append to an ended
// stream, an edit of a streaming message.
func checkStreamCalls(t testing.TB, s *bottest.Streaming) {
	t.Helper()
	for _, c := range s.Calls() {
		if errors.Is(c.Err, bottest.ErrTooLong) || errors.Is(c.Err, bottest.ErrEmpty) ||
			errors.Is(c.Err, bottest.ErrStreaming) || errors.Is(c.Err, bottest.ErrNotStreaming) {
			t.Errorf("%s of %s at %s: %v", c.Op, c.Ref.ID, c.At.Format(time.TimeOnly), c.Err)
		}
	}
}
