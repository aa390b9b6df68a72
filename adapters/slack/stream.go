package slack

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/chat"
)

// Native streaming (docs/platforms.md#slack-streaming): chat.startStream
// opens a message that chat.appendStream extends with markdown_text and
// chat.stopStream ends. Delivery (bot/outbound/delivery_native.go) drives it and
// falls back to send+edit whenever StartStream fails with anything but a
// rate limit.

var (
	_ chat.Streamer     = (*Adapter)(nil)
	_ chat.StreamCloser = (*Adapter)(nil)
	_ chat.RefStream    = (*stream)(nil)
)

// maxStreamChunk is the most markdown_text one chat.appendStream (or
// chat.stopStream) call takes, in characters.
const maxStreamChunk = 12000

// ErrStreamNeedsThread is StartStream's answer for a conversation without
// a thread (a DM's main view): Slack's chat.startStream requires thread_ts,
// and answering in a new thread under the person's message would move the
// conversation somewhere they did not put it. Delivery then answers with
// send+edit.
var ErrStreamNeedsThread = fmt.Errorf("slack: native streaming needs a thread (chat.startStream requires thread_ts): %w", chat.ErrStreamNotHere)

// StreamsIn reports whether t is a thread: Slack streams nowhere else.
func (a *Adapter) StreamsIn(t chat.Thread) bool { return t.ID != "" }

// StartStream opens a native stream replying in t to u. Outside DMs Slack
// wants the recipient: the asking user and their team (t.Space, the team
// the message came from). Errors go through wrap: a 429 is a
// *chat.RateLimitError (start later); everything else (missing_scope,
// unknown_method, missing_recipient_*, user_not_found, …) makes delivery
// fall back to send+edit.
func (a *Adapter) StartStream(ctx context.Context, t chat.Thread, u chat.User) (chat.Stream, error) {
	if err := checkThread(t); err != nil {
		return nil, err
	}
	if t.ID == "" {
		return nil, ErrStreamNeedsThread
	}
	opts := []slack.MsgOption{slack.MsgOptionTS(t.ID)}
	if !isDM(t.Chat) {
		if u.ID == "" || t.Space == "" {
			return nil, fmt.Errorf("slack: a native stream in channel %s needs the recipient user and team (user %q, team %q)", t.Chat, u.ID, t.Space)
		}
		opts = append(opts, slack.MsgOptionRecipientUserID(u.ID), slack.MsgOptionRecipientTeamID(t.Space))
	}
	_, ts, err := a.api.StartStreamContext(ctx, t.Chat, opts...)
	if err != nil {
		return nil, wrap("chat.startStream", err)
	}
	if ts == "" {
		return nil, errors.New("slack chat.startStream: no ts in the answer")
	}
	return &stream{a: a, ref: chat.MessageRef{Thread: t, ID: ts}}, nil
}

// CloseStream ends the stream of ref's message, whoever started it (a
// process that crashed, a Finish that failed). A message that does not
// stream any more (message_not_in_streaming_state, or stopped_by_user) is
// already what the caller wants: nil.
func (a *Adapter) CloseStream(ctx context.Context, ref chat.MessageRef) error {
	if err := checkThread(ref.Thread); err != nil {
		return err
	}
	if ref.ID == "" {
		return errors.New("slack: closing the stream of a message without a ts")
	}
	_, _, err := a.api.StopStreamContext(ctx, ref.Thread.Chat, ref.ID)
	if notStreaming(err) {
		return nil
	}
	return wrap("chat.stopStream", err)
}

// isDM reports whether channel is a direct message (ids "D…").
func isDM(channel string) bool { return strings.HasPrefix(channel, "D") }

// notStreaming reports whether err says the message has stopped streaming
// already.
func notStreaming(err error) bool {
	e, ok := errors.AsType[slack.SlackErrorResponse](err)
	return ok && (e.Err == "message_not_in_streaming_state" || e.Err == "stopped_by_user")
}

// stream is one chat.startStream message. Delivery calls it from one
// goroutine at a time; the mutex makes that an invariant rather than an
// assumption.
type stream struct {
	a   *Adapter
	ref chat.MessageRef

	mu sync.Mutex
	// shown is the markdown Slack has accepted into the message, exactly.
	shown string
	// ahead is the text sent past what the caller knows: the chunks of a
	// long delta that went through before a later chunk failed. The
	// caller repeats the delta after a 429, and this part is skipped.
	ahead string
	// stopped: chat.stopStream succeeded, or Slack had ended the stream.
	stopped bool
	// unsure: Slack ended the stream itself, so shown may not be what
	// the message shows; Finish then always replaces it.
	unsure bool
	// done: Finish succeeded.
	done bool
}

// Ref is the stream's message, known from chat.startStream.
func (s *stream) Ref() chat.MessageRef { return s.ref }

// Append adds delta (Markdown) to the message, in calls of at most
// maxStreamChunk characters. After an error nothing the caller needs to
// resend is lost: chunks that did go through are remembered and skipped
// when the caller repeats the delta.
func (s *stream) Append(ctx context.Context, delta string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("slack: append to a native stream that has ended")
	}
	if s.ahead != "" {
		if strings.HasPrefix(delta, s.ahead) {
			delta = delta[len(s.ahead):]
		} else {
			// The caller moved on (a reset): the message shows text it
			// does not know about, which Finish replaces (shown keeps
			// the truth).
			s.ahead = ""
		}
	}
	for _, c := range chunkRunes(delta, maxStreamChunk) {
		if err := s.appendChunk(ctx, c); err != nil {
			return err
		}
	}
	s.ahead = ""
	return nil
}

func (s *stream) appendChunk(ctx context.Context, c string) error {
	_, _, err := s.a.api.AppendStreamContext(ctx, s.ref.Thread.Chat, s.ref.ID, slack.MsgOptionMarkdownText(c))
	if err != nil {
		if notStreaming(err) {
			s.stopped, s.unsure = true, true
		}
		return wrap("chat.appendStream", err)
	}
	s.shown += c
	s.ahead += c
	return nil
}

// Finish ends the stream so that the message shows final. When final
// extends what was streamed and has no buttons, the rest goes in the last
// appends and chat.stopStream: the message stays a streamed Markdown one.
// Otherwise (a reset changed the text, buttons, a plain-text retry, or
// Slack ended the stream itself) the stream is stopped and the message
// replaced with chat.update, rendered as Send renders it. Retrying after
// an error redoes only what is left.
func (s *stream) Finish(ctx context.Context, final chat.Out) (chat.MessageRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.ref, nil
	}
	native := !final.Plain && len(final.Buttons) == 0
	if !s.stopped {
		if native && strings.HasPrefix(final.Text, s.shown) {
			chunks := chunkRunes(final.Text[len(s.shown):], maxStreamChunk)
			var last string
			if n := len(chunks); n > 0 {
				last, chunks = chunks[n-1], chunks[:n-1]
			}
			for _, c := range chunks {
				if err := s.appendChunk(ctx, c); err != nil {
					if !s.stopped {
						return chat.MessageRef{}, err
					}
					break // Slack ended it: replace below
				}
			}
			if !s.stopped {
				if err := s.stop(ctx, last); err != nil {
					return chat.MessageRef{}, err
				}
				if !s.unsure {
					s.shown += last
				}
			}
		} else if err := s.stop(ctx, ""); err != nil {
			return chat.MessageRef{}, err
		}
	}
	if !native || s.unsure || s.shown != final.Text {
		if err := s.a.Edit(ctx, s.ref, final); err != nil {
			return chat.MessageRef{}, err
		}
	}
	s.done = true
	return s.ref, nil
}

// stop is chat.stopStream, with md as its last markdown_text if not empty.
// A stream Slack has ended already counts as stopped, with the message's
// text unsure.
func (s *stream) stop(ctx context.Context, md string) error {
	var opts []slack.MsgOption
	if md != "" {
		opts = append(opts, slack.MsgOptionMarkdownText(md))
	}
	_, _, err := s.a.api.StopStreamContext(ctx, s.ref.Thread.Chat, s.ref.ID, opts...)
	switch {
	case err == nil:
		s.stopped = true
		return nil
	case notStreaming(err):
		s.stopped, s.unsure = true, true
		return nil
	}
	return wrap("chat.stopStream", err)
}

// chunkRunes cuts s into pieces of at most limit runes, at rune
// boundaries; "" gives no pieces.
func chunkRunes(s string, limit int) []string {
	var out []string
	for s != "" {
		if utf8.RuneCountInString(s) <= limit {
			return append(out, s)
		}
		i, n := 0, 0
		for n < limit {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
