package llm

import "context"

// SSE is a stream of server-sent events as the SDKs return it (both
// SDKs' ssestream.Stream[T] satisfy it).
type SSE[T any] interface {
	Next() bool
	Current() T
	Err() error
	Close() error
}

// Call is one streamed call through a provider's SDK, with the state that
// turns the SDK's events into neutral ones. StreamCall drives it; a
// provider makes a fresh Call for every call.
type Call[T any] interface {
	// Send builds the SDK's request and sends it with a's middleware
	// attached (see Attempt.Observe). An error means the request could
	// not be built, and nothing was sent.
	Send(ctx context.Context, a *Attempt) (SSE[T], error)
	// Decode handles the next SDK event, yielding the neutral events it
	// carries. It returns false once yield has returned false (the
	// consumer stopped ranging), and an error when the event does not
	// continue the stream, which is reported as a malformed stream.
	Decode(ev T, yield func(Event) bool) (bool, error)
	// Done returns the final response of a stream that ended cleanly, or
	// false when the stream never said the answer was complete: it was
	// cut short.
	Done() (*Response, bool)
}

// StreamCall runs c, yielding its events and then EventDone: the loop
// every provider's Stream shares. A consumer that stops ranging ends the
// HTTP request at once, not when the model finishes talking. Failures are
// yielded as *Error, except cancellation, which is yielded as the
// context's error (see Endpoint.Classify).
func StreamCall[T any](ctx context.Context, ep Endpoint, c Call[T], yield func(Event, error) bool) {
	// Close drops the body of a consumer that stopped ranging; cancel
	// covers a request still waiting for its headers.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var a Attempt
	s, err := c.Send(ctx, &a)
	if err != nil {
		yield(Event{}, &Error{Provider: ep.Provider, Kind: KindBadRequest, Message: err.Error(), Err: err})
		return
	}
	defer s.Close()

	emit := func(ev Event) bool { return yield(ev, nil) }
	for s.Next() {
		more, err := c.Decode(s.Current(), emit)
		if err != nil {
			yield(Event{}, ep.malformed(&a, err))
			return
		}
		if !more {
			return
		}
	}
	if err := s.Err(); err != nil {
		yield(Event{}, ep.Classify(ctx, &a, err))
		return
	}
	resp, ok := c.Done()
	if !ok {
		yield(Event{}, ep.truncated(&a))
		return
	}
	yield(Event{Kind: EventDone, Response: resp}, nil)
}
