package discordtest

import (
	"context"
	"time"
)

// HoldGateway keeps the client away: gateway connections opened from now
// on are accepted but get no HELLO until ReleaseGateway, so the client
// can neither RESUME nor IDENTIFY. Dispatches meanwhile go where they
// would while the client is away: into the current session, for a RESUME
// to replay. Holding is cheaper for a test than refusing connections,
// which discordgo answers with growing backoff.
func (s *Server) HoldGateway() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gw.hold == nil {
		s.gw.hold = make(chan struct{})
	}
}

// ReleaseGateway lets held and future gateway connections proceed.
func (s *Server) ReleaseGateway() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gw.hold != nil {
		close(s.gw.hold)
		s.gw.hold = nil
	}
	s.notifyLocked()
}

// Held counts the gateway connections waiting for ReleaseGateway.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.held
}

// ForgetSessions forgets every gateway session, as Discord does when a
// session expires while its client is away: the next RESUME is answered
// with op 9 (d: false) and the client identifies afresh. What a forgotten
// session had not delivered is never dispatched again, though it stays
// readable over REST (GET /channels/{id}/messages). A client still
// connected is dropped. Dispatches produced from now until the next
// IDENTIFY wait for it, as after InvalidateSession.
func (s *Server) ForgetSessions() { s.forget(-1) }

// ForgetShard is ForgetSessions for shard's sessions alone: the other
// shards keep theirs.
func (s *Server) ForgetShard(shard int) { s.forget(shard) }

// forget forgets the sessions of shard, or all (-1).
func (s *Server) forget(shard int) {
	s.afterFirstBeats(shard)
	s.mu.Lock()
	var drop []*gwConn
	for id, sess := range s.gw.sessions {
		if shard >= 0 && sess.shard != shard {
			continue
		}
		if c := sess.conn; c != nil {
			c.sess, sess.conn = nil, nil
			drop = append(drop, c)
		}
		delete(s.gw.sessions, id)
		if s.gw.current[sess.shard] == sess {
			delete(s.gw.current, sess.shard)
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range drop {
		c.closeNow()
	}
}

// awaitRelease blocks a new connection while the gateway is held; false
// means the server or the connection ended first.
func (s *Server) awaitRelease(ctx context.Context) bool {
	s.mu.Lock()
	hold := s.gw.hold
	if hold == nil {
		s.mu.Unlock()
		return true
	}
	s.gw.held++
	s.notifyLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.gw.held--
		s.notifyLocked()
		s.mu.Unlock()
	}()
	select {
	case <-hold:
		return true
	case <-ctx.Done():
		return false
	}
}

// firstBeatWait bounds afterFirstBeats for a client that never beats.
const firstBeatWait = 10 * time.Second

// afterFirstBeats waits until the current connection of shard (of every
// shard: -1) has sent its first heartbeat, or has ended. A client drops
// nothing by itself before then, but discordgo does when its connection is
// cut before that first beat: its heartbeat goroutine, failing to write,
// starts a second reconnect that races the reader's, which is a data race
// inside the library and can leave the shard stalled for its backoff. A
// real gateway rarely drops a connection within its first milliseconds;
// the outage helpers wait for the beat so tests see one reconnect.
func (s *Server) afterFirstBeats(shard int) {
	s.mu.Lock()
	var conns []*gwConn
	for _, cur := range s.gw.currentSessions() {
		if (shard < 0 || cur.shard == shard) && cur.conn != nil {
			conns = append(conns, cur.conn)
		}
	}
	s.mu.Unlock()
	limit := time.NewTimer(firstBeatWait)
	defer limit.Stop()
	for _, c := range conns {
		select {
		case <-c.beat:
		case <-c.done:
		case <-limit.C:
			return
		case <-s.ctx.Done():
			return
		}
	}
}
