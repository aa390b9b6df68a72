package outbound

import (
	"context"

	"github.com/parleybot/parley/chat"
)

// Reply is how one answer is shown as it is produced: the core's delivery
// (ReplyWriter) sends, edits or streams it on the platform.
type Reply interface {
	// Delta appends streamed text.
	Delta(ctx context.Context, text string) error
	// Reset discards the text streamed so far: the model call is being
	// retried and will stream its answer again.
	Reset(ctx context.Context) error
	// Progress shows a transient status line (a tool running, a retry).
	Progress(ctx context.Context, status string) error
	// Finish shows the final text of the answer.
	Finish(ctx context.Context, final string) error
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
	Thread    chat.Thread
	Refs      []string // platform message ids, in order: first message, then continuations
	Text      string   // the text the messages show now
	Status    string
	Attempts  int
}
