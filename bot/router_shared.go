package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// Sharing makes a router one of several replicas of Parley on one shared
// store (docs/replicas.md). Any replica may receive any event; the inbox
// accepts each once across them. A session's turns run on the replica that
// holds its lease, one turn at a time; a message that reaches a replica
// while another holds the session stays unfinished in the inbox, and the
// replicas' adoption pass hands it to whichever takes the session next. A
// replica that dies stops renewing its leases; once they expire, another
// adopts its unfinished work and resumes each turn from the store, in the
// same reply message, exactly as crash recovery does.
type Sharing struct {
	Leases Leases
	// Replicas, when set, is the register each replica beats in; from the
	// count of live replicas it takes its share of the bot-wide rate
	// limits (Pacer.SetShare). nil: each replica paces as if alone.
	Replicas Replicas
	// BeatEvery is how often the replica beats (default 2 s); one that
	// missed three beats counts as gone.
	BeatEvery time.Duration
	// Holder names this replica in the leases; unique per process (each
	// piece of work holds as Holder/<n>).
	Holder string
	// TTL is how long a lease outlives its last renewal: how soon the
	// others take over a dead replica's sessions. Default 30 s; renewed
	// every third of it.
	TTL time.Duration
	// AdoptEvery is how often the replica looks for unfinished work no
	// replica is doing (default 2 s).
	AdoptEvery time.Duration
	// AdoptAfter is how old an unfinished inbox item must be before a
	// replica other than the one that accepted it may take it: that one
	// tries the session's lease within milliseconds of accepting, and an
	// item must never be taken twice from a replica that has not yet
	// tried. Default 10 s.
	AdoptAfter time.Duration
	// RetryEvery is how soon a replica asks again for a session another
	// replica holds while it has messages of it queued, for up to
	// AdoptAfter (default 250 ms).
	RetryEvery time.Duration
	// SignalEvery is how often a replica running a turn looks for a /stop
	// or /pause of it that reached another replica (router_remote.go;
	// default 1 s).
	SignalEvery time.Duration
	// Elected names, by platform, the lease under which one replica alone
	// receives that platform's events (Telegram's long polling, which
	// answers two pollers with 409 Conflict; Discord's gateway session).
	// A platform not named receives on every replica (Slack's Socket Mode
	// spreads events over the connections; webhooks behind a balancer).
	Elected map[string]string
	// Sleep is the clock's sleep (the core's).
	Sleep func(ctx context.Context, d time.Duration) error

	// busy, set by the core, is poked when a session starts draining, so
	// that a replica that was idle counts itself among the senders at
	// once (core_share.go).
	busy chan struct{}
}

// woke tells the core's beat that a session started draining; a nil s or
// a beat already poked costs nothing. The caller may hold the router's
// lock: it never blocks.
func (s *Sharing) woke() {
	if s == nil || s.busy == nil {
		return
	}
	select {
	case s.busy <- struct{}{}:
	default:
	}
}

// settle checks s and fills its defaults; a nil s is no sharing.
func (s *Sharing) settle() error {
	if s == nil {
		return nil
	}
	if s.Leases == nil || s.Holder == "" || s.Sleep == nil {
		return errors.New("router: Sharing needs Leases, Holder and Sleep")
	}
	if s.TTL <= 0 {
		s.TTL = 30 * time.Second
	}
	if s.AdoptEvery <= 0 {
		s.AdoptEvery = 2 * time.Second
	}
	if s.AdoptAfter <= 0 {
		s.AdoptAfter = 10 * time.Second
	}
	if s.BeatEvery <= 0 {
		s.BeatEvery = 2 * time.Second
	}
	if s.RetryEvery <= 0 {
		s.RetryEvery = 250 * time.Millisecond
	}
	if s.SignalEvery <= 0 {
		s.SignalEvery = time.Second
	}
	return nil
}

// startGate spaces the session starts of platform across the replicas
// (StartGated): a start takes the lease "start:<platform>" for every and
// never releases it, so the next start, on any replica, comes every later
// at the soonest.
func (r *Router) startGate(platform string) func(ctx context.Context, every time.Duration) error {
	return func(ctx context.Context, every time.Duration) error {
		s := r.cfg.Sharing
		name := "start:" + platform
		for {
			// A holder of its own each time: holding it already must
			// not extend it.
			holder := s.Holder + "/start/" + strconv.FormatInt(r.leaseSeq.Add(1), 10)
			ok, err := s.Leases.HoldLease(ctx, name, holder, r.cfg.Now(), every)
			if err != nil || ok {
				return err
			}
			if err := s.Sleep(ctx, max(every/10, 100*time.Millisecond)); err != nil {
				return err
			}
		}
	}
}

// sessionLease is the lease a session's turns run under.
func sessionLease(sid string) string { return "session:" + sid }

// holding runs fn while this replica holds lease name, renewing it; it
// reports false, without running fn, when another replica holds it.
// Without sharing fn just runs. fn's context ends when the lease is lost
// (another replica took it after renewals failed for most of a TTL): its
// work is handed back unfinished, as at shutdown, for the new holder to
// resume.
func (r *Router) holding(ctx context.Context, name string, fn func(context.Context)) bool {
	s := r.cfg.Sharing
	if s == nil {
		fn(ctx)
		return true
	}
	// Each holding is a holder of its own, so that two pieces of work of
	// this process never share a lease either.
	holder := s.Holder + "/" + strconv.FormatInt(r.leaseSeq.Add(1), 10)
	ok, err := s.Leases.HoldLease(ctx, name, holder, r.cfg.Now(), s.TTL)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("take lease", "lease", name, "err", err)
		}
		return false
	}
	if !ok {
		return false
	}
	held, lost := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		r.renew(held, name, holder, lost)
	}()
	fn(held)
	lost()
	<-renewed
	// Handed back at once, so another replica need not wait out the TTL;
	// even when ctx ended (shutdown), which is when it matters most.
	if err := s.Leases.ReleaseLease(context.WithoutCancel(ctx), name, holder); err != nil {
		r.log.Warn("release lease", "lease", name, "err", err)
	}
	return true
}

// renew extends lease name every third of the TTL until ctx ends, and
// calls lost when the lease is gone: taken by another replica, or not
// renewed for two thirds of a TTL (then another may take it any moment).
func (r *Router) renew(ctx context.Context, name, holder string, lost context.CancelFunc) {
	s := r.cfg.Sharing
	last := r.cfg.Now()
	for s.Sleep(ctx, s.TTL/3) == nil {
		now := r.cfg.Now()
		ok, err := s.Leases.HoldLease(ctx, name, holder, now, s.TTL)
		switch {
		case err == nil && ok:
			last = now
			continue
		case err == nil:
			r.log.Warn("lease taken by another replica; handing the work back", "lease", name)
		case now.Sub(last) < 2*s.TTL/3:
			r.log.Warn("renew lease", "lease", name, "err", err)
			continue
		default:
			r.log.Error("lease not renewed; handing the work back", "lease", name, "err", err)
		}
		lost()
		return
	}
}

// dropQueued forgets what is queued for st in this process; it stays
// unfinished in the inbox, for the replica that holds the session. The
// caller holds r.mu.
func (r *Router) dropQueued(st *sessionState) {
	for _, w := range st.work {
		if w.recovered != nil {
			st.recovering--
		}
	}
	if r.cfg.Metrics != nil {
		for _, m := range st.queue {
			delete(r.received, m.Key)
		}
	}
	st.work, st.queue = nil, nil
}

// adoptable reports whether a replica may take the unfinished item it now:
// old enough that the replica which accepted it has tried its session's
// lease. Without sharing everything unfinished is this process's.
func (r *Router) adoptable(it InboxItem) bool {
	s := r.cfg.Sharing
	return s == nil || it.ReceivedAt.IsZero() || r.cfg.Now().Sub(it.ReceivedAt) >= s.AdoptAfter
}

// active reports whether this process has session sid queued or running:
// its unfinished items are then in hand here, or wait for it to finish.
func (r *Router) active(sid string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.sessions[sid]
	return ok
}

// adopt looks for unfinished work no replica is doing, every AdoptEvery,
// until ctx ends: a dead replica's turns once its leases expired, and
// messages that came while another replica held their session.
func (r *Router) adopt(ctx context.Context) {
	s := r.cfg.Sharing
	for s.Sleep(ctx, s.AdoptEvery) == nil {
		if err := r.Recover(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("adopt unfinished work", "err", err)
		}
	}
}

// receive runs a's Run for the router: on every replica, or, when a's
// platform is elected, on the one replica holding its lease (lead).
func (r *Router) receive(ctx context.Context, a chat.Adapter) error {
	s := r.cfg.Sharing
	name, elected := "", false
	if s != nil {
		name, elected = s.Elected[a.Platform()]
	}
	if !elected {
		return a.Run(ctx, r)
	}
	sh, ok := a.(chat.ShardedReceiver)
	if !ok || sh.Shards() <= 1 {
		return r.lead(ctx, name, func(ctx context.Context) error { return a.Run(ctx, r) })
	}
	// One election per shard: the shards spread over the replicas.
	errs := make(chan error, sh.Shards())
	for i := range sh.Shards() {
		go func() {
			errs <- r.lead(ctx, fmt.Sprintf("%s:%d", name, i), func(ctx context.Context) error { return sh.RunShard(ctx, r, i) })
		}()
	}
	var first error
	for range sh.Shards() {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// lead runs run on the one replica holding lease name, until ctx ends;
// the others stand by to take over within a TTL of the holder's death,
// or a third of one after it hands the lease back. Without sharing run
// just runs. An error of run's own ends lead with it.
func (r *Router) lead(ctx context.Context, name string, run func(context.Context) error) error {
	s := r.cfg.Sharing
	if s == nil {
		return run(ctx)
	}
	for ctx.Err() == nil {
		var err error
		finished := false
		held := r.holding(ctx, name, func(held context.Context) {
			r.log.Info("leading for the replicas", "lease", name)
			err = run(held)
			finished = held.Err() == nil // returned of itself, not for a lost lease
		})
		if err != nil && ctx.Err() == nil {
			return err
		}
		if finished {
			return nil
		}
		if held && ctx.Err() == nil {
			r.log.Warn("no longer leading: the lease went to another replica", "lease", name)
		}
		if s.Sleep(ctx, s.TTL/3) != nil {
			break
		}
	}
	return nil
}

// sessionIdle reports whether no replica runs session sid and none has
// work of it left unfinished: only then may a decision made here without
// a waiter continue the session (ResumeApproval). Otherwise the turn that
// waits for it, here or on another replica, reads the decision from the
// record (approvals.Config.PollEvery), or the turn that will be adopted
// finds it there when it asks again; a second continuation would answer
// twice.
func (r *Router) sessionIdle(ctx context.Context, sid string) (bool, error) {
	s := r.cfg.Sharing
	probe := s.Holder + "/probe"
	ok, err := s.Leases.HoldLease(ctx, sessionLease(sid), probe, r.cfg.Now(), s.TTL)
	if err != nil || !ok {
		return false, err
	}
	defer func() {
		if err := s.Leases.ReleaseLease(context.WithoutCancel(ctx), sessionLease(sid), probe); err != nil {
			r.log.Warn("release lease", "lease", sessionLease(sid), "err", err)
		}
	}()
	items, err := r.cfg.Inbox.Unfinished(ctx)
	if err != nil {
		return false, err
	}
	for _, it := range items {
		rec, err := decodeInbox(it.Payload)
		if err != nil || rec.Kind != kindMessage {
			continue
		}
		if other, bound, err := r.cfg.Sessions.BoundSession(ctx, rec.Message.Thread); err == nil && bound && other == sid {
			return false, nil
		}
	}
	return true, nil
}

// draining reports whether this process has any session queued or
// running: it is sending, or about to.
func (r *Router) draining() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions) > 0
}

// settleQueued checks, once this replica holds session sid, the messages
// it queued before it had the lease: another replica may have answered
// one meanwhile (it is no longer unfinished: dropped here), or started one
// and died (its turn is in the transcript: it is resumed as crash recovery
// does, not started again). Without sharing nothing else runs sessions.
func (r *Router) settleQueued(ctx context.Context, sid string) {
	if r.cfg.Sharing == nil {
		return
	}
	r.mu.Lock()
	queued := slices.Clone(r.sessions[sid].queue)
	r.mu.Unlock()
	if len(queued) == 0 {
		return
	}
	open, err := r.unfinished(ctx)
	if err != nil {
		r.log.Warn("check queued messages", "session", sid, "err", err)
		return
	}
	gone := map[string]bool{}
	var started []chat.Message
	for _, m := range queued {
		if _, ok := open[m.Key]; !ok {
			gone[m.Key] = true
			continue
		}
		p, err := r.cfg.Runner.Progress(ctx, sid, m.Key)
		if err == nil && p.Phase != agent.PhaseNotStarted {
			gone[m.Key] = true
			started = append(started, m)
		}
	}
	if len(gone) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.sessions[sid]
	st.queue = slices.DeleteFunc(st.queue, func(m chat.Message) bool { return gone[m.Key] })
	for _, m := range started {
		st.work = append(st.work, workItem{recovered: &m})
		st.recovering++
	}
}

// adoptOwn takes, before this replica hands session sid's lease back, the
// session's unfinished work that reached other replicas while it held it:
// they could not run it, and would otherwise wait for the adoption pass.
// It reports whether it queued anything. The replica that accepted such a
// message and has not yet tried the lease finds it answered when it gets
// the lease (settleQueued).
func (r *Router) adoptOwn(ctx context.Context, sid string) bool {
	if r.cfg.Sharing == nil || ctx.Err() != nil {
		return false
	}
	open, err := r.unfinished(ctx)
	if err != nil {
		r.log.Warn("adopt the session's work", "session", sid, "err", err)
		return false
	}
	var mine []workItem
	for _, it := range open {
		rec, err := decodeInbox(it.Payload)
		if err != nil {
			continue
		}
		switch {
		case rec.Kind == kindMessage:
			if other, bound, err := r.cfg.Sessions.BoundSession(ctx, rec.Message.Thread); err == nil && bound && other == sid {
				mine = append(mine, workItem{recovered: rec.Message})
			}
		case rec.Kind == kindApproval && rec.Approval.Session == sid:
			mine = append(mine, workItem{approval: rec.Approval})
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.sessions[sid]
	here := map[string]bool{}
	for _, m := range st.queue {
		here[m.Key] = true
	}
	added := false
	for _, w := range mine {
		if w.recovered != nil && here[w.recovered.Key] {
			continue // queued here since: it runs as it is
		}
		st.work = append(st.work, w)
		if w.recovered != nil {
			st.recovering++
		}
		added = true
	}
	return added
}

// unfinished is the inbox's unfinished items by key.
func (r *Router) unfinished(ctx context.Context) (map[string]InboxItem, error) {
	items, err := r.cfg.Inbox.Unfinished(ctx)
	if err != nil {
		return nil, err
	}
	open := make(map[string]InboxItem, len(items))
	for _, it := range items {
		open[it.Key] = it
	}
	return open, nil
}
