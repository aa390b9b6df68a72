package bot

import (
	"context"
	"time"
)

// How turns ended is kept for the console's overview (today's answers and
// errors, answer latency per hour over the last day) as counts per hour,
// outcome and latency rounded up to two significant digits — a histogram
// whose size does not grow with the traffic, so the overview reads a busy
// day as fast as a quiet one. A turn adds one to its count in the same
// transaction that marks its messages done (Inbox.FinishTurn), so it
// costs a turn no commit of its own.

// TurnRecord is one ended turn.
type TurnRecord struct {
	At      time.Time // when it ended: its final answer shown, or its failure told
	Outcome TurnOutcome
	// Latency is from the turn's message reaching the router to the
	// turn's end; 0 when this process did not see it arrive (a turn
	// resumed after a restart or a late approval).
	Latency time.Duration
	// Where is whose turn it was and where: the store keeps the chat as
	// one its author has written in (history_search's reach, history.go).
	// A zero User keeps nothing.
	Where Where
	// ChatName is the chat's name as the platform calls it, kept with it.
	ChatName string
}

// TurnHour is one count of the kept turns: N turns that ended in the hour
// from Hour with Outcome and a latency that LatencyBucket rounds to
// Latency (0: unknown).
type TurnHour struct {
	Hour    time.Time
	Outcome TurnOutcome
	Latency time.Duration
	N       int
}

// TurnBook reads the kept turns (both store engines implement it).
type TurnBook interface {
	// TurnHours lists the counts of the hours from since to until (since
	// included, until not; both are read on the hour).
	TurnHours(ctx context.Context, since, until time.Time) ([]TurnHour, error)
}

// LatencyBucket is the latency d is counted under: whole milliseconds,
// rounded up to two significant digits (87 ms, 410 ms, 1.3 s, 22 s), so
// that a percentile read from the counts is at most 10 % above the
// measured one, and a day holds at most a few hundred counts an hour; 0
// stays 0 (unknown).
func LatencyBucket(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	unit := time.Duration(1)
	for ms > 99*unit {
		unit *= 10
	}
	return (ms + unit - 1) / unit * unit * time.Millisecond
}
