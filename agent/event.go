package agent

import (
	"time"

	"github.com/parleybot/parley/agent/llm"
)

// EventKind tells which fields of an Event are set.
type EventKind int

const (
	// EventText: Text is the next piece of the answer.
	EventText EventKind = iota + 1
	// EventToolStart: Tool is about to run.
	EventToolStart
	// EventToolEnd: Tool ran; Result, IsError, Transient and Duration
	// are set.
	EventToolEnd
	// EventApprovalNeeded: Approval describes a call waiting for a person.
	EventApprovalNeeded
	// EventApprovalDecided: Approval and Decision are set.
	EventApprovalDecided
	// EventRetry: the model call failed and will be retried; see Retry.
	EventRetry
	// EventCompaction: the history was compacted; see Compaction.
	EventCompaction
	// EventDone ends a successful run: Text is the final answer of the last
	// step, Usage the tokens of the whole run; Paused when a task paused
	// (its budget spent, or asked to) rather than finished.
	EventDone
	// EventCheck: a task's answer (Text) goes to the check step before it
	// is final (agent/plan.go).
	EventCheck
	// EventThinking: Text is the end of the model's reasoning so far in
	// this step (a preview of a few hundred bytes, replaced by the next
	// one). Only a Runner with ShowThinking emits it.
	EventThinking
)

// Event is one item of a run's stream.
type Event struct {
	Kind    EventKind
	Text    string
	Tool    *llm.ToolCall
	Result  string
	IsError bool
	// Transient: the tool's error was the environment's (Transient read
	// its Go error while it was still typed), not the call's.
	Transient  bool
	Duration   time.Duration
	Approval   *ApprovalRequest
	Decision   *Decision
	Retry      *RetryInfo
	Compaction *CompactionInfo
	// Usage is what the run's model calls cost (EventDone), cached input
	// tokens included.
	Usage llm.Usage
	// Model is the "provider/model" that wrote the final answer
	// (EventDone): the fallback model when the primary failed.
	Model string
	// Paused: the task paused (EventDone).
	Paused bool
	// Budget is a task's step budget when the tool ran (EventToolEnd):
	// Step model calls of Limit taken, the one that asked for the tool
	// included. Nil outside a task.
	Budget *StepBudget
}

// RetryInfo describes one retry of a model call.
type RetryInfo struct {
	Attempt int           // the attempt that failed, from 1
	Wait    time.Duration // how long before the next attempt
	Err     error
	// Reset is true when the failed attempt had already streamed text: the
	// consumer must discard the text of the current step, because the next
	// attempt streams it again from the start.
	Reset bool
	// Model, when set, is the model the call continues on at once (Wait is
	// zero): the failed model's breaker is open (llm.Fallback).
	Model string
}
