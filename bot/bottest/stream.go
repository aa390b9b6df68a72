package bottest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/chat"
)

// Ops of native streaming, for call records and fault injection.
const (
	OpStartStream Op = "start_stream"
	OpAppend      Op = "append_stream"
	OpFinish      Op = "finish_stream"
	OpCloseStream Op = "close_stream"
)

// Errors of native streaming, modelled on Slack's
// (docs/platforms.md#slack-streaming).
var (
	// ErrStreamUnsupported: no native streaming here (Slack's
	// unknown_method, channel_type_not_supported, missing_recipient_*),
	// for injection into StartStream.
	ErrStreamUnsupported = errors.New("bottest: native streaming not supported here")
	// ErrStreaming: Edit of a message whose stream is still open (Slack's
	// streaming_state_conflict).
	ErrStreaming = errors.New("bottest: message is still streaming")
	// ErrNotStreaming: Append, Finish or CloseStream of a stream that has
	// ended or expired (Slack's message_not_in_streaming_state).
	ErrNotStreaming = errors.New("bottest: message is not in streaming state")
)

// Streaming is the fake platform with native streaming, like Slack's
// chat.startStream / appendStream / stopStream: a chat.Streamer (and a
// chat.StreamCloser) whose streams are messages of the fake, their text
// growing with each append. StartStream, Append, Finish and CloseStream
// draw from the same rate budget as Send and Edit, refuse text over
// MaxLen, and take injected faults under their own Op. Safe for concurrent
// use.
type Streaming struct {
	*Adapter

	// Guarded by Adapter.mu.
	streams map[string]*streamState // message id → its stream
	idle    time.Duration
}

// streamState is one stream, guarded by Adapter.mu.
type streamState struct {
	ref  chat.MessageRef
	open bool
	last time.Time // of the start or the last append, for expiry
}

var (
	_ chat.Adapter      = (*Streaming)(nil)
	_ chat.Streamer     = (*Streaming)(nil)
	_ chat.StreamCloser = (*Streaming)(nil)
	_ chat.RefStream    = (*fakeStream)(nil)
)

// NewStreaming returns a fake platform with native streaming. Streams
// never expire unless ExpireStreamsAfter says so.
func NewStreaming(cfg Config) *Streaming {
	return &Streaming{Adapter: New(cfg), streams: map[string]*streamState{}}
}

// ExpireStreamsAfter makes a stream stop streaming once d passes without
// an append, as Slack's do: Append and Finish then fail with
// ErrNotStreaming, and the message can be edited. d ≤ 0 turns expiry off.
func (s *Streaming) ExpireStreamsAfter(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = d
}

// StreamsIn reports true: the fake streams everywhere, unless a fault
// injected on OpStartStream says otherwise.
func (s *Streaming) StreamsIn(chat.Thread) bool { return true }

// StartStream opens a stream in t for u: a new, empty message.
func (s *Streaming) StartStream(ctx context.Context, t chat.Thread, u chat.User) (chat.Stream, error) {
	a := s.Adapter
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpStartStream, At: a.cfg.Now(), Thread: t, User: u}
	if err := a.injected(ctx, c.Op); err != nil {
		return nil, a.record(c, err)
	}
	if err := a.limit(t, c.At); err != nil {
		return nil, a.record(c, err)
	}
	a.nextID++
	c.Ref = chat.MessageRef{Thread: t, ID: fmt.Sprint(a.nextID)}
	a.msgs[c.Ref.ID] = &Msg{Ref: c.Ref, SentAt: c.At}
	a.order = append(a.order, c.Ref.ID)
	s.streams[c.Ref.ID] = &streamState{ref: c.Ref, open: true, last: c.At}
	c.Applied = true
	if err, _ := a.failAfter(c.Op); err != nil {
		// The stream exists, the caller does not know it.
		return nil, a.record(c, err)
	}
	return &fakeStream{s: s, ref: c.Ref}, a.record(c, nil)
}

// Edit edits a message, unless it is still streaming.
func (s *Streaming) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	a := s.Adapter
	a.mu.Lock()
	if st, ok := s.streams[ref.ID]; ok && st.ref.Thread == ref.Thread && s.streaming(st, a.cfg.Now()) {
		// Refused before the rate budget is counted.
		err := a.record(Call{Op: OpEdit, At: a.cfg.Now(), Thread: ref.Thread, Ref: ref, Out: out},
			fmt.Errorf("%w: %s", ErrStreaming, ref.ID))
		a.mu.Unlock()
		return err
	}
	a.mu.Unlock()
	return a.Edit(ctx, ref, out)
}

// CloseStream ends the stream of ref without changing its text, as
// Slack's chat.stopStream does given only channel and ts.
func (s *Streaming) CloseStream(ctx context.Context, ref chat.MessageRef) error {
	a := s.Adapter
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpCloseStream, At: a.cfg.Now(), Thread: ref.Thread, Ref: ref}
	if err := a.injected(ctx, c.Op); err != nil {
		return a.record(c, err)
	}
	st, ok := s.streams[ref.ID]
	if !ok || st.ref.Thread != ref.Thread || !s.streaming(st, c.At) {
		return a.record(c, fmt.Errorf("%w: %s", ErrNotStreaming, ref.ID))
	}
	if err := a.limit(ref.Thread, c.At); err != nil {
		return a.record(c, err)
	}
	st.open = false
	c.Applied = true
	return a.record(c, nil)
}

// IsStreaming reports whether ref's stream is open now.
func (s *Streaming) IsStreaming(ref chat.MessageRef) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.streams[ref.ID]
	return ok && s.streaming(st, s.cfg.Now())
}

// Started returns the StartStream calls that opened a stream.
func (s *Streaming) Started() []Call { return s.applied(OpStartStream) }

// Appends returns the Append calls that took effect.
func (s *Streaming) Appends() []Call { return s.applied(OpAppend) }

// Finished returns the Finish calls that took effect.
func (s *Streaming) Finished() []Call { return s.applied(OpFinish) }

// Closed returns the CloseStream calls that took effect.
func (s *Streaming) Closed() []Call { return s.applied(OpCloseStream) }

// streaming reports whether st is open at now, ending it when it has
// expired. Called with Adapter.mu held.
func (s *Streaming) streaming(st *streamState, now time.Time) bool {
	if st.open && s.idle > 0 && now.Sub(st.last) >= s.idle {
		st.open = false
	}
	return st.open
}

// fakeStream is the chat.Stream StartStream returns.
type fakeStream struct {
	s   *Streaming
	ref chat.MessageRef
}

// Ref returns the stream's message, known from the start as on Slack.
func (f *fakeStream) Ref() chat.MessageRef { return f.ref }

// Append adds delta to the message.
func (f *fakeStream) Append(ctx context.Context, delta string) error {
	s, a := f.s, f.s.Adapter
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpAppend, At: a.cfg.Now(), Thread: f.ref.Thread, Ref: f.ref, Out: chat.Out{Text: delta}}
	if err := f.check(ctx, &c); err != nil {
		return a.record(c, err)
	}
	if delta == "" {
		return a.record(c, ErrEmpty)
	}
	m := a.msgs[f.ref.ID]
	if err := a.checkLen(m.Text + delta); err != nil {
		return a.record(c, err)
	}
	m.Text += delta
	s.streams[f.ref.ID].last = c.At
	c.Applied = true
	if err, _ := a.failAfter(c.Op); err != nil {
		return a.record(c, err)
	}
	return a.record(c, nil)
}

// Finish ends the stream, the message showing final in place of what was
// streamed.
func (f *fakeStream) Finish(ctx context.Context, final chat.Out) (chat.MessageRef, error) {
	s, a := f.s, f.s.Adapter
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpFinish, At: a.cfg.Now(), Thread: f.ref.Thread, Ref: f.ref, Out: final}
	if err := f.check(ctx, &c); err != nil {
		return chat.MessageRef{}, a.record(c, err)
	}
	if err := a.checkLen(final.Text); err != nil {
		return chat.MessageRef{}, a.record(c, err)
	}
	m := a.msgs[f.ref.ID]
	c.NoOp = m.Text == final.Text && fmt.Sprint(m.Buttons) == fmt.Sprint(final.Buttons)
	m.Text, m.Buttons = final.Text, final.Buttons
	s.streams[f.ref.ID].open = false
	c.Applied = true
	if err, _ := a.failAfter(c.Op); err != nil {
		return chat.MessageRef{}, a.record(c, err)
	}
	return f.ref, a.record(c, nil)
}

// check applies what the platform checks before an append or a finish:
// injected faults, the streaming state, the rate limit. Called with
// Adapter.mu held.
func (f *fakeStream) check(ctx context.Context, c *Call) error {
	a := f.s.Adapter
	if err := a.injected(ctx, c.Op); err != nil {
		return err
	}
	if !f.s.streaming(f.s.streams[f.ref.ID], c.At) {
		return fmt.Errorf("%w: %s", ErrNotStreaming, f.ref.ID)
	}
	return a.limit(f.ref.Thread, c.At)
}
