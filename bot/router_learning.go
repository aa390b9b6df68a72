package bot

import (
	"context"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/chat"
)

// Learning from use starts with what each run tells about itself, counted
// at no model cost (agent/evolve): the router counts a turn's events, keeps
// the count in the scope the turn belongs to, and marks the run corrected
// when the same person's next message there reads as a correction.

// RunRecorder keeps runs' signals (evolve.Recorder over store.DB).
type RunRecorder interface {
	RecordRun(ctx context.Context, r evolve.Run) error
	MarkCorrected(ctx context.Context, sessionID, author string) (bool, error)
}

// recordRun keeps the signals of m's turn, which ag ran, in the scope
// it learns in there; about is what the turn was about (its text, its
// tools and their errors). An agent that does not learn keeps none. A
// failure to keep them is logged: it must never cost an answer.
func (r *Router) recordRun(ctx context.Context, sid string, m chat.Message, ag *Agent, s evolve.Signals, about string) {
	if r.cfg.Runs == nil || ag.NoLearning {
		return
	}
	run := evolve.Run{
		Scope:     Where{Thread: m.Thread, User: m.User, Direct: m.Direct}.Home().Of(ag.Name).Key(),
		SessionID: sid, Author: m.User.Key(), Key: m.Key, At: r.cfg.Now(), Signals: s, About: about,
	}
	if err := r.cfg.Runs.RecordRun(context.WithoutCancel(ctx), run); err != nil {
		r.log.Error("record run signals", "key", m.Key, "err", err)
	}
}

// noteCorrection marks the person's previous run in the session corrected
// when what they write now reads as a correction of it.
func (r *Router) noteCorrection(ctx context.Context, sid string, u chat.User, text string) {
	if r.cfg.Runs == nil || !evolve.IsCorrection(text) {
		return
	}
	if _, err := r.cfg.Runs.MarkCorrected(ctx, sid, u.Key()); err != nil {
		r.log.Error("mark run corrected", "session", sid, "err", err)
	}
}
