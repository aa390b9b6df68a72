package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// workItem is session work that is not a new message: a message a crash
// interrupted, or a decision no turn was waiting for. Exactly one is set.
type workItem struct {
	recovered *chat.Message
	approval  *approvalResume
}

// Recover queues what a crash interrupted: every accepted, unfinished
// event is finished exactly once, in the reply message the outbox already
// holds. Run calls it before taking events; a core that decides approvals
// calls it before handing them their recovered decisions, so that a turn a
// crash left waiting for an approval continues in its own reply.
func (r *Router) Recover(ctx context.Context) error {
	items, err := r.cfg.Inbox.Unfinished(ctx)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	for _, it := range items {
		if !r.adoptable(it) {
			continue // its replica is on it (router_shared.go)
		}
		if err := r.recoverOne(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

func (r *Router) recoverOne(ctx context.Context, it InboxItem) error {
	if age := r.cfg.Now().Sub(it.ReceivedAt); !it.ReceivedAt.IsZero() && age > r.cfg.ResumeWithin {
		// Answering now would post into a conversation that moved on.
		r.log.Warn("not resuming a stale message", "key", it.Key, "age", age.Round(time.Minute))
		return r.cfg.Inbox.MarkDone(ctx, it.Key)
	}
	rec, err := decodeInbox(it.Payload)
	if err != nil {
		r.log.Error("recover: closing an inbox item", "key", it.Key, "err", err)
		return r.cfg.Inbox.MarkDone(ctx, it.Key)
	}
	switch rec.Kind {
	case kindMessage:
		m := *rec.Message
		if _, ok := r.adapters[m.Thread.Platform]; !ok {
			return nil // its platform is not enabled now; keep it for later
		}
		sid, err := r.cfg.Sessions.SessionFor(ctx, m.Thread)
		if err != nil {
			return fmt.Errorf("recover %s: %w", it.Key, err)
		}
		if r.cfg.Sharing != nil && r.active(sid) {
			return nil // in hand here, or next when the session's turn ends
		}
		r.addWork(sid, workItem{recovered: &m})
	case kindApproval:
		if r.cfg.Sharing != nil && r.active(rec.Approval.Session) {
			return nil
		}
		r.addWork(rec.Approval.Session, workItem{approval: rec.Approval})
	case kindKBAdd:
		if _, ok := r.adapters[rec.KBAdd.Thread.Platform]; !ok {
			return nil // its platform is not enabled now; keep it for later
		}
		job, key, base := *rec.KBAdd, it.Key, r.base
		r.wg.Go(func() {
			// Once across replicas: the job runs under its own lease.
			r.holding(base, "kb:"+key, func(ctx context.Context) {
				r.kbAdd(ctx, job, func() {
					if err := r.cfg.Inbox.MarkDone(context.WithoutCancel(ctx), key); err != nil {
						r.log.Error("mark inbox done", "key", key, "kind", kindKBAdd, "err", err)
					}
				})
			})
		})
	default:
		// Commands and clicks: their effect happened or did not; a person
		// can repeat a command, so just close the record.
		return r.cfg.Inbox.MarkDone(ctx, it.Key)
	}
	return nil
}

// addWork queues item in the session and starts draining it.
func (r *Router) addWork(sid string, item workItem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.session(sid)
	st.work = append(st.work, item)
	if item.recovered != nil {
		st.recovering++
	}
	if !st.running {
		st.running = true
		base := r.base
		r.wg.Go(func() { r.drain(base, sid) })
		r.cfg.Sharing.woke()
	}
}

// runWork runs one work item, deciding from the transcript as it is now.
func (r *Router) runWork(ctx context.Context, sid string, item workItem) {
	if item.approval != nil {
		r.continueApproval(ctx, sid, *item.approval)
		return
	}
	m := *item.recovered
	defer func() {
		r.mu.Lock()
		r.session(sid).recovering--
		r.mu.Unlock()
	}()
	p, err := r.cfg.Runner.Progress(ctx, sid, m.Key)
	if err != nil {
		r.log.Error("recover: progress", "key", m.Key, "err", err)
		return // stays unfinished: tried again at the next start
	}
	switch p.Phase {
	case agent.PhaseNotStarted:
		r.withSlot(ctx, m.User, func(release func()) { r.turn(ctx, sid, []chat.Message{m}, agent.Turn{}, release) })
	case agent.PhaseOpen:
		// Calls waiting for an approval wait again (the approval is the
		// same record, its buttons still work); other unfinished calls
		// are marked interrupted. See agent.Turn.Resume.
		r.withSlot(ctx, m.User, func(release func()) { r.turn(ctx, sid, []chat.Message{m}, agent.Turn{Resume: true}, release) })
	case agent.PhaseAnswered:
		r.redeliver(ctx, sid, m, p.Answer)
	}
}

// continueApproval continues the session from a decided call, in the
// reply of the approval's own inbox key, as far as the transcript says is
// left: the call itself, the answer after it, or only its delivery (a
// crash cut an earlier continuation short). Once accepted, this item alone
// continues the call: ResumeApproval accepts none while a recovered turn
// of the session could take the decision itself.
func (r *Router) continueApproval(ctx context.Context, sid string, a approvalResume) {
	p, err := r.cfg.Runner.AfterCall(ctx, sid, a.Call)
	if err != nil {
		r.log.Error("continue approval", "approval", a.ID, "err", err)
		return // stays unfinished: tried again at the next start
	}
	m := a.message()
	switch p.Phase {
	case agent.PhaseNotStarted:
		decisions := map[string]agent.Decision{a.Call: a.Decision}
		r.withSlot(ctx, m.User, func(release func()) {
			r.turn(ctx, sid, []chat.Message{m}, agent.Turn{Resume: true, Decisions: decisions}, release)
		})
	case agent.PhaseOpen:
		r.withSlot(ctx, m.User, func(release func()) { r.turn(ctx, sid, []chat.Message{m}, agent.Turn{Resume: true}, release) })
	case agent.PhaseAnswered:
		r.redeliver(ctx, sid, m, p.Answer)
	}
}

// ResumeApproval continues the session of an approval decided while no
// turn was waiting for it: after a restart, or a click on a message whose
// turn ended. It runs only while the call still has no result, and once
// per approval (the inbox dedupes its key).
func (r *Router) ResumeApproval(ctx context.Context, rec approvals.Record) error {
	r.mu.Lock()
	st, ok := r.sessions[rec.SessionID]
	recovering := ok && st.recovering > 0
	r.mu.Unlock()
	if recovering {
		// A turn a crash interrupted is about to continue (or is
		// continuing) this session; asking for this approval again, it
		// finds the decision in the record. A second continuation would
		// answer twice.
		return nil
	}
	if r.cfg.Sharing != nil {
		if idle, err := r.sessionIdle(ctx, rec.SessionID); err != nil || !idle {
			return err
		}
	}
	if r.cfg.Helpers != nil {
		// A task's helper (agent/task delegate) has no turn of its own
		// in the thread: its decision stays in the record, and the
		// helper finds it when its task delegates to it again.
		if _, helper, err := r.cfg.Helpers.HelperParent(ctx, rec.SessionID); err != nil || helper {
			return err
		}
	}
	open, err := r.cfg.Runner.CallOpen(ctx, rec.SessionID, rec.ToolCallID)
	if err != nil || !open {
		return err // settled already (stopped, or resumed before)
	}
	info, err := r.cfg.Sessions.Session(ctx, rec.SessionID)
	if err != nil {
		return fmt.Errorf("resume approval %s: %w", rec.ID, err)
	}
	a := approvalResume{
		ID: rec.ID, Session: rec.SessionID, Call: rec.ToolCallID, Thread: info.Thread,
		Requester: rec.RequesterUser(), Decision: rec.Decision(),
	}
	// The record lets recovery continue this turn if the process dies
	// while it runs.
	payload, err := encodeInbox(inboxRecord{Kind: kindApproval, Approval: &a})
	if err != nil {
		return err
	}
	accepted, err := r.cfg.Inbox.Accept(ctx, a.key(), a.Thread.Platform, payload)
	if err != nil || !accepted {
		return err
	}
	r.addWork(rec.SessionID, workItem{approval: &a})
	return nil
}

// ResumeDecided is the router as the approvals' Resumer: it logs what it
// cannot hand on, since the click or sweep that decided has no one to
// tell.
func (r *Router) ResumeDecided(ctx context.Context, rec approvals.Record) {
	if err := r.ResumeApproval(ctx, rec); err != nil && !errors.Is(err, context.Canceled) {
		r.log.Error("resume approval", "approval", rec.ID, "err", err)
	}
}

// redeliver finishes the reply of an answer the model completed before the
// crash: the outbox continues the same message; nothing is asked again.
func (r *Router) redeliver(ctx context.Context, sid string, m chat.Message, answer string) {
	defer func() {
		if err := r.cfg.Inbox.MarkDone(ctx, m.Key); err != nil {
			r.log.Error("mark inbox done", "key", m.Key, "err", err)
		}
		r.answered(m.Thread.Platform, m.Key)
	}()
	r.taskRedelivered(ctx, sid, m, answer)
	reply, err := r.cfg.Reply(ctx, r.adapters[m.Thread.Platform], m.Key, sid, m.Thread, m.User, m.ID)
	if err != nil {
		r.log.Error("resume reply", "key", m.Key, "err", err)
		return
	}
	if err := reply.Finish(ctx, answer); err != nil {
		r.log.Error("resume finish", "key", m.Key, "err", err)
	}
}
