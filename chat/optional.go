package chat

import (
	"context"
	"time"
)

// What an adapter may implement besides Adapter: the core looks for each
// with a type assertion.

// Connection is implemented by adapters that know whether they are
// connected to their platform (a long poll answered, a gateway or socket
// session open), for a readiness check. An adapter without it counts as
// connected.
type Connection interface {
	Connected() bool
}

// RefStream is a Stream that knows its message from the start (Slack's
// chat.startStream returns the ts). Delivery records the ref before the
// first Append, so that a crash mid-stream resumes by editing that message.
// A Stream without it is recorded when Finish returns its ref; a crash
// before that leaves the partial stream behind and a restart answers in a
// new message (still never a second stream).
type RefStream interface {
	Stream
	Ref() MessageRef
}

// StreamCloser is implemented by adapters that can end a native stream
// knowing only its message (Slack's chat.stopStream takes channel and ts):
// the stream of a process that crashed, or one whose Finish failed. Editing
// a message that still streams fails (Slack: streaming_state_conflict), so
// delivery closes such a stream before it edits the message. An error that
// the message does not stream any more is expected and only logged.
type StreamCloser interface {
	CloseStream(ctx context.Context, ref MessageRef) error
}

// ShardedReceiver is implemented by adapters whose platform splits the
// events a bot receives into shards (Discord's gateway sharding). Run
// receives on every shard; replicas sharing a store instead elect a
// receiver per shard, so the shards spread over them (router_shared.go).
type ShardedReceiver interface {
	// Shards is how many shards the bot's events are split into.
	Shards() int
	// RunShard receives shard's events until ctx ends, as Run does for all.
	RunShard(ctx context.Context, h Handler, shard int) error
}

// ShareTaker is implemented by adapters that pace platform calls of their
// own, outside Outbound (Slack's users.info): replicas sharing a store
// tell them how many replicas now draw on the bot's budgets, as they tell
// every Pacer (Pacer.SetShare).
type ShareTaker interface {
	SetShare(n int)
}

// StartGated is implemented by adapters whose platform limits how fast a
// bot opens sessions across all its connections (Discord: one IDENTIFY per
// 5 s for most bots). Each adapter spaces its own; replicas sharing a
// store also hand it a gate that spaces the starts of every replica
// (router_shared.go, startGate).
type StartGated interface {
	// SetStartGate makes each new session first wait for gate, with the
	// spacing its platform asks for.
	SetStartGate(gate func(ctx context.Context, every time.Duration) error)
}

// PrivateLinker is implemented by adapters whose platform has a link that
// opens a private chat with the bot (Telegram's t.me/<bot>?start=<param>),
// for telling someone who has none how to open one. start is the start
// parameter the chat opens with ([A-Za-z0-9_-], at most 64 bytes); ""
// means the link is not known (yet).
type PrivateLinker interface {
	PrivateLink(start string) string
}

// MemberChecker is implemented by adapters that can tell whether a person
// belongs to the place a conversation is in: the Slack channel, the
// Discord server, the Telegram group; in a direct chat, its person.
// Reminders call only members (agent/remind: a person outside the place
// must not be pinged into it on someone's schedule).
type MemberChecker interface {
	// IsMember reports whether the user with platform id userID belongs
	// to t's place now. An error is a failure to find out, which callers
	// treat as no.
	IsMember(ctx context.Context, t Thread, userID string) (bool, error)
}

// HomePublisher is implemented by adapters whose platform gives each
// person a page of the app's own that only they see (Slack's App Home
// tab). PublishHome replaces what u's page shows with home. Only the
// person sees it, so it may carry what is theirs alone (a sign-in link).
type HomePublisher interface {
	PublishHome(ctx context.Context, u User, home Home) error
}

// HomeHandler is implemented by handlers that answer a person opening
// the app's page (HomeOpened). An adapter that delivers HomeOpened looks
// for it on its Handler with a type assertion and, without it, ignores
// the event: a Handler need not know of pages at all.
type HomeHandler interface {
	// HandleHome is told that h.User opened their page. It returns fast,
	// as every Handler method does: what it shows goes out later, through
	// the adapter's HomePublisher.
	HandleHome(ctx context.Context, h HomeOpened) error
}

// MessageLinker is implemented by adapters whose platform has links that
// open a message (Slack's permalinks, Discord's jump links, Telegram's
// t.me links to messages of supergroups), for citing past messages
// (history_search). key is the message's Message.Key, as the adapter made
// it; "" asks for the conversation t itself. "" means there is no link
// (a Telegram private chat). It may ask the platform (is t.ID a thread's
// channel?), within ctx.
type MessageLinker interface {
	MessageLink(ctx context.Context, t Thread, key string) string
}
