package bot

import (
	"context"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// turn runs one agent turn for batch and shows it through a Reply. base
// carries resume settings; its text and caller come from batch. release
// hands back the turn's concurrency slot before the final delivery.
func (r *Router) turn(ctx context.Context, sid string, batch []chat.Message, base agent.Turn, release func()) {
	m := batch[0]
	tr := &turnRun{r: r, sid: sid, m: m, keys: inboxKeys(batch), release: release, err: errTurnNotRun, outcome: TurnNotRun}
	// The turn's agent, chosen once: it keeps it to the end, whatever
	// changes meanwhile, a crash included. The model too: /model's choice
	// for this session, if any.
	tr.agent = r.turnAgent(ctx, Where{Thread: m.Thread, User: m.User, Direct: m.Direct}, sid, m.Key, base.Resume)
	defer tr.end(ctx)
	a, ok := r.adapters[m.Thread.Platform]
	if !ok {
		r.log.Error("no adapter for message", "platform", m.Thread.Platform, "key", m.Key)
		return
	}
	var files attached
	if !base.Resume {
		var err error
		if files, err = r.readTurn(ctx, sid, batch); err != nil || files.empty() {
			return // shutdown, or nothing to answer: the person was told why
		}
	}
	if !tr.open(ctx, a) {
		return
	}
	tr.received = r.takeReceived(m.Key)
	turnCtx, cancel := context.WithCancel(r.costTrace(withInbound(ctx, m.Thread.Platform, tr.received), tr))
	defer cancel()
	tr.hold(cancel)
	// What reaches other replicas for this turn: /stop, /pause, steering.
	defer r.watchSignals(turnCtx, sid, m)()

	t := tr.agentTurn(ctx, batch, base, files)
	if !t.Resume {
		r.noteCorrection(ctx, sid, m.User, tr.asked)
	}
	tr.task = r.beginTask(ctx, sid, m)
	for ev, err := range tr.agent.Runner.Run(turnCtx, t) {
		if err != nil {
			if ctx.Err() == nil {
				tr.failed(ctx, err)
			} // else shutdown: see end
			return
		}
		tr.observe(ctx, ev)
	}
}

// inboxKeys are the inbox keys of batch.
func inboxKeys(batch []chat.Message) []string {
	keys := make([]string, 0, len(batch))
	for _, b := range batch {
		keys = append(keys, b.Key)
	}
	return keys
}

// turnRun is one turn as it goes: what it answers and for whom, and how it
// ended, kept as the run's events pass, so that Router.turn reads as the
// story of a turn.
type turnRun struct {
	r   *Router
	sid string
	m   chat.Message // the message that started it: its author acts
	// agent is what runs: chosen at the start, kept to the end.
	agent *Agent
	// keys are the inbox keys it answers, those of the author's messages
	// that steered it included.
	keys []string
	// wake is told when its author writes while it runs (the wait tool).
	wake chan struct{}
	// reminded is told the author's reminders shown meanwhile (wait).
	reminded chan string
	asked    string // what was written, without the files' contents
	reply    outbound.Reply
	release  func() // hands the concurrency slot back once the model is done
	obs      evolve.Observer
	task     *taskTurn
	shown    string // the answer as streamed so far
	// How the turn ended, for a scheduled run's record and Metrics.
	answer  string
	err     error
	outcome TurnOutcome
	// received is when its message reached the router; zero when this
	// process did not see it arrive (a resumed turn).
	received time.Time
}

// open opens the turn's reply, as the timekeeper and the metrics see it.
func (tr *turnRun) open(ctx context.Context, a chat.Adapter) bool {
	r, m := tr.r, tr.m
	reply, err := r.cfg.Reply(ctx, a, m.Key, tr.sid, m.Thread, m.User, m.ID)
	if err != nil {
		r.log.Error("open reply", "key", m.Key, "err", err)
		return false
	}
	if r.due != nil {
		reply = r.due.wrap(m.Key, reply)
	}
	tr.reply = r.meter(reply, a, m.Thread)
	return true
}

// hold marks the session as running this turn: cancel stops it (/stop),
// and its author and keys are what steering and other replicas look for.
func (tr *turnRun) hold(cancel context.CancelFunc) {
	r := tr.r
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.session(tr.sid)
	st.cancel = cancel
	st.author = tr.m.User.Key()
	tr.wake = make(chan struct{}, 1)
	st.wake = tr.wake
	tr.reminded = make(chan string, 1)
	st.reminded = tr.reminded
	st.turnKeys = map[string]bool{}
	for _, k := range tr.keys {
		st.turnKeys[k] = true
	}
}

// agentTurn is what the agent runs: base with the author as its caller,
// the place, the text and pictures of files, and the author's later
// messages to steer it.
func (tr *turnRun) agentTurn(ctx context.Context, batch []chat.Message, base agent.Turn, files attached) agent.Turn {
	r, m := tr.r, tr.m
	t := base
	t.SessionID, t.Key = tr.sid, m.Key
	where := Where{Thread: m.Thread, User: m.User, Direct: m.Direct}
	t.Caller = agent.Caller{SessionID: tr.sid, UserKey: m.User.Key(), UserName: m.User.Name,
		Scopes: where.SearchedKeys(tr.agent.KB), Learned: where.LearnedKeys(tr.agent.Name), Confirm: r, Approve: r.approver(), Reach: r,
		Team: r.teamOf(where), TeamDesk: r.teamDesk(), History: r.history(),
		Origin: agent.Origin{Platform: m.Thread.Platform, Space: m.Thread.Space, Chat: m.Thread.Chat, Thread: m.Thread.ID,
			Direct: m.Direct, Home: where.Home().Key()}}
	t.Place = agent.Place{Platform: m.Thread.Platform, ChatName: m.Place.ChatName, ChatKind: m.Place.ChatKind, Thread: m.Place.Thread}
	tr.asked = t.Text
	if !t.Resume {
		tr.asked = joinTexts(batch)
		t.Text, t.Images = files.text, files.images
	}
	t.Steer = func() []agent.Steered { return tr.steer(ctx) }
	t.Wake = tr.wake
	t.Reminded = tr.reminded
	t.Pause = r.pauseAsked(tr.sid)
	return t
}

// steer takes the author's messages queued while the turn runs. Only the
// turn's author steers it: a message from anyone else waits for a turn of
// its own, with that person's memory and name (docs/architecture.md, Who
// acts).
func (tr *turnRun) steer(ctx context.Context) []agent.Steered {
	r, author := tr.r, tr.m.User.Key()
	r.mu.Lock()
	st := r.session(tr.sid)
	var took []chat.Message
	rest := st.queue[:0]
	for _, q := range st.queue {
		if q.User.Key() != author {
			rest = append(rest, q)
			continue
		}
		took = append(took, q)
		tr.keys = append(tr.keys, q.Key)
		st.turnKeys[q.Key] = true
	}
	st.queue = rest
	r.mu.Unlock()
	// Their files are read outside the lock: downloads take a while.
	var out []agent.Steered
	for _, q := range took {
		a, err := r.readTurn(ctx, tr.sid, []chat.Message{q})
		if err != nil || a.empty() {
			continue
		}
		out = append(out, agent.Steered{Text: a.text, Author: q.User.Name, Key: q.Key, Images: a.images})
	}
	return out
}

// observe counts ev, keeps the task's state, and shows ev.
func (tr *turnRun) observe(ctx context.Context, ev agent.Event) {
	r := tr.r
	tr.obs.Observe(ev)
	tr.task.observe(ctx, ev)
	switch {
	case ev.Kind == agent.EventText:
		tr.shown += ev.Text
	case ev.Kind == agent.EventToolEnd:
		tr.auditTool(ctx, ev)
	case ev.Kind == agent.EventRetry && ev.Retry.Reset || ev.Kind == agent.EventCheck:
		tr.shown = "" // streamed again, or checked before it is final
	case ev.Kind == agent.EventDone:
		tr.release()
		tr.answer, tr.err, tr.outcome = ev.Text, nil, TurnAnswered
		r.recordRun(ctx, tr.sid, tr.m, tr.agent, tr.obs.End(nil, false), tr.asked+"\n"+tr.obs.About())
		if err := r.quota.spend(ctx, tr.m.User, ev.Usage.InputTokens+ev.Usage.OutputTokens); err != nil {
			r.log.Error("count tokens", "user", tr.m.User.Key(), "err", err)
		}
	}
	if err := show(ctx, tr.reply, ev); err != nil {
		r.log.Error("show reply", "key", tr.m.Key, "err", err)
	}
}

// failed ends a run that failed or was stopped (/stop): its open tool
// calls are closed when stopped, and the person sees what was shown with
// a note.
func (tr *turnRun) failed(ctx context.Context, err error) {
	r := tr.r
	r.mu.Lock()
	stopped := r.session(tr.sid).stopped
	r.session(tr.sid).stopped = false
	r.mu.Unlock()
	if stopped {
		if err := tr.agent.Runner.CloseOpenCalls(ctx, tr.sid); err != nil {
			r.log.Error("close open calls", "session", tr.sid, "err", err)
		}
	}
	tr.release()
	tr.task.ended(ctx, err, stopped)
	tr.answer, tr.err, tr.outcome = tr.shown, err, TurnFailed
	if stopped {
		tr.outcome = TurnStopped
	}
	r.recordRun(ctx, tr.sid, tr.m, tr.agent, tr.obs.End(err, stopped), tr.asked+"\n"+tr.obs.About())
	r.finishFailed(ctx, tr.reply, tr.shown, err, stopped)
}

// end lets the session go and closes the turn's inbox items, each told to
// the timekeeper and its adapter. A turn that shutdown interrupted keeps
// its items unfinished and its reply open, so the restart continues the
// same message instead of posting another.
func (tr *turnRun) end(ctx context.Context) {
	r, platform := tr.r, tr.m.Thread.Platform
	r.mu.Lock()
	r.session(tr.sid).pause = false // a /pause is this turn's, or the next one's
	r.session(tr.sid).turnKeys = nil
	r.mu.Unlock()
	r.takeReceived(tr.keys...) // the steered ones'
	if ctx.Err() != nil {
		r.endTurn(platform, TurnInterrupted)
		return
	}
	r.endTurn(platform, tr.outcome)
	rec := TurnRecord{At: r.cfg.Now(), Outcome: tr.outcome,
		Where: Where{Thread: tr.m.Thread, User: tr.m.User, Direct: tr.m.Direct}, ChatName: tr.m.Place.ChatName}
	if !tr.received.IsZero() {
		rec.Latency = rec.At.Sub(tr.received)
	}
	if err := r.cfg.Inbox.FinishTurn(ctx, tr.keys, rec); err != nil {
		r.log.Error("mark inbox done", "keys", tr.keys, "err", err)
	}
	for _, k := range tr.keys {
		if r.due != nil {
			r.due.ended(ctx, k, tr.answer, tr.err)
		}
	}
	for _, k := range tr.keys {
		r.answered(platform, k)
	}
}
