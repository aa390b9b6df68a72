package bot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// enqueue queues m in its session and starts draining the session when
// nothing runs there yet.
func (r *Router) enqueue(ctx context.Context, m chat.Message) error {
	sid, err := r.cfg.Sessions.SessionFor(ctx, m.Thread)
	if err != nil {
		return fmt.Errorf("session for %s: %w", m.Thread, err)
	}
	if !m.Direct { // a direct chat belongs to its one person anyway
		if err := r.noteStarter(ctx, sid, m.User); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.session(sid)
	if notice := r.queueFull(st, m); notice != "" {
		return &refusedError{notice}
	}
	st.queue = append(st.queue, m)
	st.wakeFor(m)
	if !st.running {
		st.running = true
		// Turns outlive the adapter's event context but not shutdown.
		base := r.base
		r.wg.Go(func() { r.drain(base, sid) })
		r.cfg.Sharing.woke()
	}
	return nil
}

// wakeFor tells the running turn that its author wrote m: a wait tool
// returns, and the next step takes m as steering. Anyone else's message
// wakes nothing (docs/architecture.md, Who acts). Called with r.mu held.
func (st *sessionState) wakeFor(m chat.Message) {
	if !st.running || st.wake == nil || m.User.Key() != st.author {
		return
	}
	select {
	case st.wake <- struct{}{}:
	default: // already told
	}
}

func (r *Router) session(sid string) *sessionState {
	st, ok := r.sessions[sid]
	if !ok {
		st = &sessionState{}
		r.sessions[sid] = st
	}
	return st
}

// drain runs turns for a session until its queue is empty: on replicas
// sharing a store, while holding the session's lease (router_shared.go).
func (r *Router) drain(ctx context.Context, sid string) {
	var waited time.Duration
	for {
		held := r.holding(ctx, sessionLease(sid), func(ctx context.Context) {
			r.settleQueued(ctx, sid)
			r.drainQueue(ctx, sid)
			for r.adoptOwn(ctx, sid) {
				r.drainQueue(ctx, sid)
			}
		})
		r.mu.Lock()
		st := r.sessions[sid]
		if held && ctx.Err() == nil && (len(st.work) > 0 || len(st.queue) > 0) {
			// Queued while the lease was being handed back: take it again.
			r.mu.Unlock()
			continue
		}
		if !held && ctx.Err() == nil && waited < r.cfg.Sharing.AdoptAfter {
			// Another replica runs this session. Most often it is about
			// to let it go (its answer is out, the person wrote again at
			// once): ask again shortly rather than leave the message to
			// the adoption pass. Should that replica take the message
			// meanwhile, settleQueued finds it answered.
			r.mu.Unlock()
			if r.cfg.Sharing.Sleep(ctx, r.cfg.Sharing.RetryEvery) == nil {
				waited += r.cfg.Sharing.RetryEvery
			}
			continue
		}
		if !held {
			// That replica is still on it: what was queued here stays
			// unfinished in the inbox, for it or the adoption pass.
			r.dropQueued(st)
		}
		// Idle sessions cost nothing here. On shutdown what is queued
		// stays unfinished in the inbox and is answered after the
		// restart.
		st.running = false
		delete(r.sessions, sid)
		r.mu.Unlock()
		return
	}
}

// drainQueue runs the session's work and turns until none is left or ctx
// ends.
func (r *Router) drainQueue(ctx context.Context, sid string) {
	for {
		r.mu.Lock()
		st := r.sessions[sid]
		if len(st.work) > 0 && ctx.Err() == nil {
			item := st.work[0]
			st.work = st.work[1:]
			r.mu.Unlock()
			r.runWork(ctx, sid, item)
			continue
		}
		if len(st.queue) == 0 || ctx.Err() != nil {
			r.mu.Unlock()
			return
		}
		batch := takeBatch(st)
		r.mu.Unlock()
		r.withSlot(ctx, batch[0].User, func(release func()) { r.turn(ctx, sid, batch, agent.Turn{}, release) })
	}
}

// withSlot runs fn for u holding one of the MaxConcurrent slots, shared
// fairly between people (slots.go). fn may hand it back early with
// release, once its model work is done: delivering the last of an answer
// waits on the platform's pacing (a second or more on Telegram), which must
// not keep other conversations from starting. The session itself stays
// busy until fn returns, so its answers keep their order. At shutdown fn
// does not run: its work stays unfinished in the inbox, for the restart.
func (r *Router) withSlot(ctx context.Context, u chat.User, fn func(release func())) {
	who := u.Key()
	if r.slots.acquire(ctx, who) != nil {
		return
	}
	var once sync.Once
	release := func() { once.Do(func() { r.slots.release(who) }) }
	defer release()
	fn(release)
}

// takeBatch removes the leading run of messages by one author: they are
// answered together, with that person's memory.
func takeBatch(st *sessionState) []chat.Message {
	n := 0
	for n < len(st.queue) && st.queue[n].User == st.queue[0].User {
		n++
	}
	batch := st.queue[:n:n]
	st.queue = st.queue[n:]
	return batch
}
