package bot

import (
	"context"
	"encoding/json"
	"github.com/parleybot/parley/chat"
	"sync"
	"time"
)

// What reaches a turn from other replicas (docs/replicas.md): /stop,
// /pause, its author's messages and reminders (router_reminded.go).
//
// Turn signals: /stop and /pause across replicas. A
// command reaches the replica whose router received it, while a session's
// turn runs on the replica holding the session's lease. A router that
// finds no turn of its own running, and the lease held by another replica,
// records the request in the shared store (KV, one key per kind, so a
// /pause never overwrites a /stop) with the time it was asked. The
// replica running the turn looks every Sharing.SignalEvery and acts on a
// request made since its turn began as if the command had reached it; an
// older one is left alone, so a request that came too late never stops or
// pauses the next turn. The replicas' clocks are compared, so a request
// made within their skew of a turn's start may be missed.
//
// Steering: a message of the turn's author in its thread that another
// replica accepted stays unfinished in the inbox there (that replica
// cannot run the session). At each look the running replica queues such
// messages here (pullSteering), where the turn's next step takes them as
// it takes those that reached this replica. The turn marks them done when
// it ends, before it hands the session's lease back, so the replica that
// accepted one finds it answered (settleQueued) and drops it.

// The kinds of turn signal.
const (
	signalStop  = "stop"
	signalPause = "pause"
)

// signalKey is where a signal of kind for session sid is kept.
func signalKey(kind, sid string) string { return "turn-" + kind + ":" + sid }

// turnSignal is one request, as kept.
type turnSignal struct {
	At int64  `json:"at"` // unix milliseconds, the asking replica's clock
	By string `json:"by"`
}

// signalElsewhere records a request of kind for session sid when another
// replica runs it, and reports whether it did; without sharing, or when
// no replica holds the session, there is nothing to signal.
func (r *Router) signalElsewhere(ctx context.Context, sid, kind string, by chat.User) (bool, error) {
	s := r.cfg.Sharing
	if s == nil {
		return false, nil
	}
	probe := s.Holder + "/probe"
	free, err := s.Leases.HoldLease(ctx, sessionLease(sid), probe, r.cfg.Now(), s.TTL)
	if err != nil {
		return false, err
	}
	if free {
		if err := s.Leases.ReleaseLease(context.WithoutCancel(ctx), sessionLease(sid), probe); err != nil {
			r.log.Warn("release lease", "lease", sessionLease(sid), "err", err)
		}
		return false, nil
	}
	v, err := json.Marshal(turnSignal{At: r.cfg.Now().UnixMilli(), By: by.Name})
	if err != nil {
		return false, err
	}
	if err := r.cfg.KV.Set(ctx, signalKey(kind, sid), string(v)); err != nil {
		return false, err
	}
	return true, nil
}

// watchSignals looks, while ctx (the turn's) lasts, for signals to session
// sid's turn, which began now answering m, and for its author's messages
// on other replicas; the returned func ends the watch and waits for it.
// Without sharing it does nothing.
func (r *Router) watchSignals(ctx context.Context, sid string, m chat.Message) (stop func()) {
	s := r.cfg.Sharing
	if s == nil {
		return func() {}
	}
	began := r.cfg.Now()
	since := began.UnixMilli()
	remindedSince := since
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s.Sleep(ctx, s.SignalEvery) == nil {
			r.pullSteering(ctx, sid, m.Thread, m.User.Key(), began)
			remindedSince = r.remindedElsewhere(ctx, sid, m.User.Key(), remindedSince)
			stop := r.signaled(ctx, signalStop, sid, since)
			pause := r.signaled(ctx, signalPause, sid, since)
			if !stop && !pause {
				continue
			}
			r.mu.Lock()
			// Under the lock, and only while the turn lasts: its end
			// clears the pause flag after cancelling ctx, so a flag set
			// here can never outlive the turn into the next one.
			if st, ok := r.sessions[sid]; ok && ctx.Err() == nil && st.running {
				if pause {
					st.pause = true
				}
				if stop && st.cancel != nil {
					st.stopped = true
					st.cancel()
				}
			}
			r.mu.Unlock()
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// signaled reports whether a signal of kind for sid was asked at or after
// since. A store that fails is logged and asked again at the next look.
func (r *Router) signaled(ctx context.Context, kind, sid string, since int64) bool {
	v, ok, err := r.cfg.KV.Get(ctx, signalKey(kind, sid))
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("read turn signal", "kind", kind, "session", sid, "err", err)
		}
		return false
	}
	var sig turnSignal
	if !ok || json.Unmarshal([]byte(v), &sig) != nil {
		return false
	}
	return sig.At >= since
}

// pullSteering queues here, for session sid's running turn in thread t,
// which began at began, the messages its author sent there that other
// replicas accepted and that are neither this turn's already nor queued
// here.
func (r *Router) pullSteering(ctx context.Context, sid string, t chat.Thread, author string, began time.Time) {
	open, err := r.recentUnfinished(ctx, began)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("look for steering messages", "session", sid, "err", err)
		}
		return
	}
	var found []chat.Message
	for _, it := range open {
		rec, err := decodeInbox(it.Payload)
		if err != nil || rec.Kind != kindMessage || rec.Message == nil {
			continue
		}
		if m := *rec.Message; m.Thread == t && m.User.Key() == author {
			found = append(found, m)
		}
	}
	if len(found) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.sessions[sid]
	if !ok || ctx.Err() != nil || !st.running {
		return
	}
	here := map[string]bool{}
	for _, q := range st.queue {
		here[q.Key] = true
	}
	for _, w := range st.work {
		if w.recovered != nil {
			here[w.recovered.Key] = true
		}
	}
	for _, m := range found {
		if !here[m.Key] && !st.turnKeys[m.Key] {
			st.queue = append(st.queue, m)
			st.wakeFor(m)
		}
	}
}

// inboxLook is the last read of the unfinished inbox, which the running
// turns' looks share: one read per half SignalEvery for the replica, not
// one per turn, as the list grows with the backlog.
type inboxLook struct {
	mu    sync.Mutex
	at    time.Time
	items []InboxItem
}

// recentUnfinished is the unfinished inbox as read at most half a
// SignalEvery ago, and not before notBefore: a turn must not see a read
// from before it began, which may list what the session's previous turn
// has answered since. A caller that finds the read under way waits for
// it.
func (r *Router) recentUnfinished(ctx context.Context, notBefore time.Time) ([]InboxItem, error) {
	l := &r.looked
	l.mu.Lock()
	defer l.mu.Unlock()
	now := r.cfg.Now()
	if !l.at.Before(notBefore) && now.Sub(l.at) < r.cfg.Sharing.SignalEvery/2 {
		return l.items, nil
	}
	items, err := r.cfg.Inbox.Unfinished(ctx)
	if err != nil {
		return nil, err
	}
	l.at, l.items = now, items
	return items, nil
}
