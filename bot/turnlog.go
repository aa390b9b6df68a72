package bot

import (
	"context"
	"time"
)

// How each turn ended is kept, one row a turn, for the console's overview
// (today's answers and errors, answer latency over the last day). The row
// is written in the same transaction that marks the turn's messages done
// (Inbox.FinishTurn), so it costs a turn no commit of its own.

// TurnRecord is one ended turn.
type TurnRecord struct {
	At       time.Time // when it ended: its final answer shown, or its failure told
	Platform string
	Agent    string // the agent that ran it (DefaultAgent, or a named one)
	Outcome  TurnOutcome
	// Latency is from the turn's message reaching the router to the
	// turn's end; 0 when this process did not see it arrive (a turn
	// resumed after a restart or a late approval).
	Latency time.Duration
}

// TurnBook reads the kept turns (both store engines implement it).
type TurnBook interface {
	// TurnsBetween lists the turns that ended in [since, until), oldest
	// first, at most limit (limit <= 0: all).
	TurnsBetween(ctx context.Context, since, until time.Time, limit int) ([]TurnRecord, error)
}
