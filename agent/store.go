package agent

import (
	"context"

	"github.com/parleybot/parley/agent/llm"
)

// SessionStore persists transcripts. The runner appends every message the
// moment it exists, so a crash loses at most the text being streamed.
type SessionStore interface {
	// Messages returns the session's transcript in order.
	Messages(ctx context.Context, sessionID string) ([]llm.Message, error)
	// AppendMessages adds messages to the end of the transcript, atomically.
	AppendMessages(ctx context.Context, sessionID string, msgs ...llm.Message) error
	// ReplaceMessages rewrites the whole transcript atomically (compaction).
	ReplaceMessages(ctx context.Context, sessionID string, msgs []llm.Message) error
}

// MemoryStore persists each user's memory. Edits are read-modify-write in
// one transaction, so concurrent writers never lose each other's entries.
type MemoryStore interface {
	// Memory returns userID's memory; a user with none gets an empty Memory.
	Memory(ctx context.Context, userID string) (Memory, error)
	// EditMemory loads the entries of one target, passes them to edit and
	// stores what edit returns, all in one transaction. An error from edit
	// aborts the transaction and is returned as is.
	EditMemory(ctx context.Context, userID string, target MemoryTarget, edit func(entries []string) ([]string, error)) error
}
