package bot

import (
	"context"
	"github.com/parleybot/parley/chat"
	"time"
)

// SessionMap binds conversations to agent sessions. The binding is durable:
// a restart never rebinds a thread (docs/architecture.md, Conversation
// identity).
type SessionMap interface {
	// SessionFor returns the session bound to t, creating and binding a new
	// one when t has none.
	SessionFor(ctx context.Context, t chat.Thread) (string, error)
	// NewSession binds t to a fresh session (the /new command) and returns it.
	NewSession(ctx context.Context, t chat.Thread) (string, error)
	// BoundSession returns t's session without creating one; ok is false
	// when the bot has never been part of t.
	BoundSession(ctx context.Context, t chat.Thread) (id string, ok bool, err error)
	// Session describes the session id: where it lives and how old it is.
	Session(ctx context.Context, id string) (SessionInfo, error)
}

// SessionInfo describes one session.
type SessionInfo struct {
	ID string
	// Thread is the conversation the session was started for. After /new
	// the thread is bound to a newer session; this one keeps its origin.
	Thread    chat.Thread
	CreatedAt time.Time
	// UpdatedAt is when a message was last appended (or CreatedAt).
	UpdatedAt time.Time
	Messages  int // length of the transcript
}

// Inbox records every accepted inbound event durably, so each is handled
// once, ever, and none is lost across a crash.
type Inbox interface {
	// Accept records key; accepted is false when key was seen before.
	Accept(ctx context.Context, key, platform string, payload []byte) (accepted bool, err error)
	// MarkDone records that the event was fully handled.
	MarkDone(ctx context.Context, key string) error
	// FinishTurn marks keys done, as MarkDone, and keeps t (turnlog.go),
	// in one transaction. An unknown key is reported after the others and
	// t are kept.
	FinishTurn(ctx context.Context, keys []string, t TurnRecord) error
	// Unfinished lists accepted events not yet done, oldest first: the
	// work a crash interrupted.
	Unfinished(ctx context.Context) ([]InboxItem, error)
}

// InboxItem is one accepted event.
type InboxItem struct {
	Key        string
	Platform   string
	Payload    []byte
	ReceivedAt time.Time
}
