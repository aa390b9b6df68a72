package bot

import (
	"context"
	"time"
)

// SessionMap binds conversations to agent sessions. The binding is durable:
// a restart never rebinds a thread (docs/architecture.md, Conversation
// identity).
type SessionMap interface {
	// SessionFor returns the session bound to t, creating and binding a new
	// one when t has none.
	SessionFor(ctx context.Context, t Thread) (string, error)
	// NewSession binds t to a fresh session (the /new command) and returns it.
	NewSession(ctx context.Context, t Thread) (string, error)
	// BoundSession returns t's session without creating one; ok is false
	// when the bot has never been part of t.
	BoundSession(ctx context.Context, t Thread) (id string, ok bool, err error)
	// Session describes the session id: where it lives and how old it is.
	Session(ctx context.Context, id string) (SessionInfo, error)
}

// SessionInfo describes one session.
type SessionInfo struct {
	ID string
	// Thread is the conversation the session was started for. After /new
	// the thread is bound to a newer session; this one keeps its origin.
	Thread    Thread
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

// Outbox holds each reply's delivery state: the platform messages it has
// produced and the text they show. One record per inbound event: a retry
// or a restart continues the same messages instead of posting new ones.
type Outbox interface {
	// Reply returns the record for inboxKey; ok is false if none exists.
	Reply(ctx context.Context, inboxKey string) (rec OutboxRecord, ok bool, err error)
	// SaveReply creates or updates the record for rec.InboxKey.
	SaveReply(ctx context.Context, rec OutboxRecord) error
}

// Reply delivery states.
const (
	ReplyStreaming = "streaming" // messages exist; the answer is not final
	ReplyDelivered = "delivered" // the final text is shown in full
	ReplyFailed    = "failed"    // delivery gave up; the failure was logged and shown
	// ReplyPosting: a part of the final answer is being sent as a new
	// message, Refs[len(Refs)], with Out.Key "<inbox key>#<part>". Saved
	// before the call, so that a restart knows the part may exist: it asks
	// a SentFinder, or sends again with the same key (delivery_post.go).
	ReplyPosting = "posting"
)

// OutboxRecord is one reply's delivery state.
type OutboxRecord struct {
	InboxKey  string
	SessionID string
	Thread    Thread
	Refs      []string // platform message ids, in order: first message, then continuations
	Text      string   // the text the messages show now
	Status    string
	Attempts  int
}
