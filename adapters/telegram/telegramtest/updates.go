package telegramtest

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// firstUpdateID is where update_id starts, as on a fresh Telegram bot.
const firstUpdateID = 100001

type update struct {
	id         int
	kind       string // "message", "callback_query"…; "" for an unrecognisable PostRaw
	raw        json.RawMessage
	redelivery bool // queued again by Redeliver: served whatever the offset
	served     bool
}

// updateQueue holds the updates not yet confirmed. It is guarded by
// Server.mu.
type updateQueue struct {
	nextID  int
	pending []*update       // by update_id
	archive map[int]*update // every update ever queued, for Redeliver
	allowed []string        // the last non-empty allowed_updates
}

func newUpdateQueue() *updateQueue {
	return &updateQueue{nextID: firstUpdateID, archive: map[int]*update{}}
}

func (q *updateQueue) allows(kind string) bool {
	if kind == "" {
		return true
	}
	if len(q.allowed) == 0 {
		// Telegram leaves these out unless they are asked for by name.
		switch kind {
		case "chat_member", "message_reaction", "message_reaction_count":
			return false
		}
		return true
	}
	return slices.Contains(q.allowed, kind)
}

// setAllowed remembers a non-empty allowed_updates list and forgets pending
// updates it excludes, as Telegram does.
func (q *updateQueue) setAllowed(kinds []string) {
	if len(kinds) == 0 {
		return
	}
	q.allowed = slices.Clone(kinds)
	q.pending = slices.DeleteFunc(q.pending, func(u *update) bool { return !q.allows(u.kind) })
}

// push queues a new update and returns its update_id.
func (q *updateQueue) push(kind string, raw json.RawMessage) int {
	u := &update{id: q.nextID, kind: kind, raw: raw}
	q.nextID++
	q.archive[u.id] = u
	if q.allows(kind) {
		q.pending = append(q.pending, u)
	}
	return u.id
}

// confirm forgets updates below a positive offset; a negative offset keeps
// only the last -offset updates.
func (q *updateQueue) confirm(offset int) {
	switch {
	case offset > 0:
		q.pending = slices.DeleteFunc(q.pending, func(u *update) bool {
			return u.id < offset && (!u.redelivery || u.served)
		})
	case offset < 0 && len(q.pending) > -offset:
		q.pending = slices.Delete(q.pending, 0, len(q.pending)+offset)
	}
}

// batch returns up to limit updates a getUpdates with offset would get.
func (q *updateQueue) batch(offset, limit int) []json.RawMessage {
	out := []json.RawMessage{}
	for _, u := range q.pending {
		if len(out) == limit {
			break
		}
		if u.id >= offset || u.redelivery || offset < 0 {
			u.served = true
			out = append(out, u.raw)
		}
	}
	return out
}

// remove forgets one update (a webhook delivery confirmed it).
func (q *updateQueue) remove(u *update) {
	q.pending = slices.DeleteFunc(q.pending, func(p *update) bool { return p == u })
}

// redeliver queues an archived update again under its own update_id.
func (q *updateQueue) redeliver(id int) bool {
	u, ok := q.archive[id]
	if !ok {
		return false
	}
	if slices.ContainsFunc(q.pending, func(p *update) bool { return p.id == id }) {
		return true // not confirmed yet: it is served again anyway
	}
	again := &update{id: u.id, kind: u.kind, raw: u.raw, redelivery: true}
	i, _ := slices.BinarySearchFunc(q.pending, id, func(p *update, id int) int { return p.id - id })
	q.pending = slices.Insert(q.pending, i, again)
	return true
}

// poller is a waiting getUpdates call; kicked is closed when a newer call
// takes over.
type poller struct{ kicked chan struct{} }

const (
	conflictOtherPoll = "terminated by other getUpdates request; make sure that only one bot instance is running"
	conflictWebhook   = "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
)

func (s *Server) getUpdates(ctx context.Context, p params) (any, error) {
	offset, err := p.int("offset")
	if err != nil {
		return nil, err
	}
	limit, err := p.int("limit")
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 100 {
		limit = 100 // Telegram clamps to 1–100, defaulting to 100
	}
	timeout, err := p.int("timeout")
	if err != nil {
		return nil, err
	}
	var allowed []string
	if _, err := p.json("allowed_updates", &allowed, "allowed_updates"); err != nil {
		return nil, err
	}
	if s.hook.url != "" {
		return nil, conflict(conflictWebhook)
	}
	s.offset = offset
	s.queue.confirm(offset)
	s.queue.setAllowed(allowed)

	me := &poller{kicked: make(chan struct{})}
	if s.poll != nil {
		close(s.poll.kicked)
	}
	s.poll = me
	defer func() {
		if s.poll == me {
			s.poll = nil
		}
	}()
	s.notifyLocked()

	deadline := time.NewTimer(time.Duration(max(timeout, 0)) * time.Second)
	defer deadline.Stop()
	for {
		if batch := s.queue.batch(offset, limit); len(batch) > 0 || timeout <= 0 {
			return batch, nil
		}
		ch := s.changes.Next()
		s.mu.Unlock()
		var kicked, done bool
		select {
		case <-ch:
		case <-me.kicked:
			kicked = true
		case <-ctx.Done():
			done = true
		case <-s.ctx.Done():
			done = true
		case <-deadline.C:
			done = true
		}
		s.mu.Lock()
		switch {
		case s.hook.url != "":
			return nil, conflict(conflictWebhook)
		case kicked:
			return nil, conflict(conflictOtherPoll)
		case done:
			return s.queue.batch(offset, limit), nil
		}
	}
}

// Polling reports whether a getUpdates call is waiting for updates.
func (s *Server) Polling() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.poll != nil
}
