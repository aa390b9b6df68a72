package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// fakeSSE replays events, then ends with err.
type fakeSSE struct {
	events []string
	err    error
	next   int
	closed bool
}

func (s *fakeSSE) Next() bool {
	if s.next == len(s.events) {
		return false
	}
	s.next++
	return true
}

func (s *fakeSSE) Current() string { return s.events[s.next-1] }

func (s *fakeSSE) Err() error {
	if s.next < len(s.events) {
		return nil
	}
	return s.err
}

func (s *fakeSSE) Close() error { s.closed = true; return nil }

// fakeCall decodes fakeSSE events: "stop" completes the answer, "bad…"
// does not continue the stream, anything else is text.
type fakeCall struct {
	sse     *fakeSSE
	sendErr error
	ctx     context.Context // what Send was given
	text    strings.Builder
	stopped bool
}

const fakeURL = "https://api.example/v1/chat"

func (c *fakeCall) Send(ctx context.Context, a *Attempt) (SSE[string], error) {
	c.ctx = ctx
	if c.sendErr != nil {
		return nil, c.sendErr
	}
	a.URL, a.Resp = fakeURL, &http.Response{StatusCode: 200, Header: http.Header{}}
	return c.sse, nil
}

func (c *fakeCall) Decode(ev string, yield func(Event) bool) (bool, error) {
	switch {
	case ev == "stop":
		c.stopped = true
		return true, nil
	case strings.HasPrefix(ev, "bad"):
		return false, errors.New(ev)
	}
	c.text.WriteString(ev)
	return yield(Event{Kind: EventTextDelta, Text: ev}), nil
}

func (c *fakeCall) Done() (*Response, bool) {
	return &Response{Text: c.text.String(), StopReason: StopEnd}, c.stopped
}

func TestStreamCall(t *testing.T) {
	tests := []struct {
		name     string
		events   []string
		endErr   error // what the SSE stream ends with
		sendErr  error
		want     []string // text deltas before the end
		wantText string   // the final response; "" when the stream fails
		wantKind ErrorKind
		wantURL  string
		wantMsg  string
		wantErr  error // wrapped by the yielded *Error
	}{
		{name: "complete answer", events: []string{"Hel", "lo", "stop"}, want: []string{"Hel", "lo"}, wantText: "Hello"},
		{
			name: "request cannot be built", sendErr: errors.New("tool \"x\": schema is not a JSON object"),
			wantKind: KindBadRequest, wantMsg: "tool \"x\": schema is not a JSON object",
		},
		{
			name: "malformed event", events: []string{"Hel", "bad chunk", "lo"}, want: []string{"Hel"},
			wantKind: KindUnknown, wantURL: fakeURL, wantMsg: "the server sent a malformed stream: bad chunk",
		},
		{
			name: "connection lost", events: []string{"Hel"}, endErr: io.ErrUnexpectedEOF, want: []string{"Hel"},
			wantKind: KindNetwork, wantURL: fakeURL, wantErr: io.ErrUnexpectedEOF,
		},
		{
			name: "ended before the answer was complete", events: []string{"Hel"}, want: []string{"Hel"},
			wantKind: KindNetwork, wantURL: fakeURL, wantErr: io.ErrUnexpectedEOF,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sse := &fakeSSE{events: tc.events, err: tc.endErr}
			c := &fakeCall{sse: sse, sendErr: tc.sendErr}
			var texts []string
			var resp *Response
			var err error
			StreamCall(t.Context(), Endpoint{Provider: "Example"}, c, func(ev Event, e error) bool {
				switch {
				case e != nil:
					err = e
				case ev.Kind == EventDone:
					resp = ev.Response
				default:
					texts = append(texts, ev.Text)
				}
				return true
			})
			if !slices.Equal(texts, tc.want) {
				t.Errorf("deltas = %q, want %q", texts, tc.want)
			}
			if tc.wantText != "" {
				if err != nil || resp == nil || resp.Text != tc.wantText {
					t.Fatalf("got %+v, %v; want a response %q", resp, err, tc.wantText)
				}
			} else {
				e, ok := AsError(err)
				if !ok || resp != nil {
					t.Fatalf("got %+v, %v; want an *Error", resp, err)
				}
				if e.Provider != "Example" || e.Kind != tc.wantKind || e.URL != tc.wantURL || e.Message != tc.wantMsg {
					t.Errorf("error = %+v, want kind %v, URL %q, message %q", e, tc.wantKind, tc.wantURL, tc.wantMsg)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("error = %v, want it to wrap %v", err, tc.wantErr)
				}
			}
			if tc.sendErr == nil && !sse.closed {
				t.Error("the SSE stream was not closed")
			}
			if c.ctx.Err() == nil {
				t.Error("the call's context is still live after the stream ended")
			}
		})
	}
}

// A consumer that stops ranging ends the call at once: no more events are
// decoded, the stream is closed and the request's context cancelled.
func TestStreamCallConsumerStops(t *testing.T) {
	sse := &fakeSSE{events: []string{"a", "b", "c", "stop"}}
	c := &fakeCall{sse: sse}
	var got []string
	StreamCall(t.Context(), Endpoint{Provider: "Example"}, c, func(ev Event, err error) bool {
		got = append(got, ev.Text)
		return false
	})
	if !slices.Equal(got, []string{"a"}) || sse.next != 1 {
		t.Errorf("yielded %q after reading %d events, want only \"a\" after 1", got, sse.next)
	}
	if !sse.closed || c.ctx.Err() == nil {
		t.Errorf("closed = %v, context error = %v; want the call ended", sse.closed, c.ctx.Err())
	}
}

// Cancellation is yielded as the context's error, not as a failure.
func TestStreamCallCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	sse := &fakeSSE{events: []string{"a"}, err: io.ErrUnexpectedEOF}
	var err error
	StreamCall(ctx, Endpoint{Provider: "Example"}, &fakeCall{sse: sse}, func(ev Event, e error) bool {
		if e != nil {
			err = e
		}
		cancel() // the caller gives up after the first delta
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if _, ok := AsError(err); ok {
		t.Errorf("error = %v is an *Error, want the bare context error", err)
	}
}
