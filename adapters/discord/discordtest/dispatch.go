package discordtest

import (
	"encoding/hex"
	"encoding/json"
)

// event is something the fake dispatches (op 0). intent is the intent a
// session needs to receive it (0: always sent); gated payloads lose their
// content without MESSAGE_CONTENT, as on Discord.
type event struct {
	t             string
	d             any
	intent        int
	stripped      any // d without content, for gated message events; nil: not gated
	interactionID string
}

type logged struct {
	seq           int64
	data          []byte
	interactionID string
}

// session is a gateway session: it outlives its connections so that a
// RESUME can replay what the client missed.
type session struct {
	id      string
	intents int
	seq     int64
	log     []logged
	conn    *gwConn // nil while the client is away
}

// gateway is guarded by Server.mu.
type gateway struct {
	conns      map[*gwConn]struct{}
	sessions   map[string]*session
	current    *session      // receives new dispatches
	backlog    []event       // produced while no session exists
	hold       chan struct{} // non-nil: new connections wait for it before HELLO
	held       int           // connections waiting on hold
	identifies int
	resumes    int
	heartbeats int
	intents    int
}

func newGateway() *gateway {
	return &gateway{conns: map[*gwConn]struct{}{}, sessions: map[string]*session{}}
}

func (g *gateway) allConns() []*gwConn {
	out := make([]*gwConn, 0, len(g.conns))
	for c := range g.conns {
		out = append(out, c)
	}
	return out
}

func dispatchFrame(seq int64, t string, d any) []byte {
	data, err := json.Marshal(frame{Op: opDispatch, D: d, S: &seq, T: &t})
	if err != nil {
		panic("discordtest: marshal dispatch: " + err.Error()) // payloads are built here; a failure is a bug
	}
	return data
}

// emitLocked dispatches ev to the current session, or keeps it for the
// next IDENTIFY when there is none.
func (s *Server) emitLocked(ev event) {
	if s.gw.current == nil {
		s.gw.backlog = append(s.gw.backlog, ev)
		return
	}
	s.appendLocked(s.gw.current, ev)
}

// appendLocked gives ev the session's next sequence number, logs it for
// replay and sends it if the client is there.
func (s *Server) appendLocked(sess *session, ev event) {
	if ev.intent != 0 && sess.intents&ev.intent == 0 {
		return
	}
	d := ev.d
	if ev.stripped != nil && sess.intents&intentMessageContent == 0 {
		d = ev.stripped
	}
	sess.seq++
	l := logged{seq: sess.seq, data: dispatchFrame(sess.seq, ev.t, d), interactionID: ev.interactionID}
	sess.log = append(sess.log, l)
	if sess.conn != nil {
		s.sendLocked(sess.conn, l)
	}
}

func (s *Server) sendLocked(c *gwConn, l logged) {
	c.pushRaw(l.data)
	if in, ok := s.w.interactions[l.interactionID]; ok && in.sent.IsZero() {
		in.sent = s.now()
	}
}

func (s *Server) newSessionID() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(s.rng.UintN(256))
	}
	return hex.EncodeToString(b[:])
}

// startSessionLocked answers an IDENTIFY: READY, one GUILD_CREATE per guild,
// then whatever was produced while no session existed.
func (s *Server) startSessionLocked(c *gwConn, intents int) {
	sess := &session{id: s.newSessionID(), intents: intents, conn: c}
	s.gw.sessions[sess.id] = sess
	s.gw.current = sess
	c.sess = sess

	guilds := make([]map[string]any, 0, len(s.w.guildOrder))
	for _, id := range s.w.guildOrder {
		guilds = append(guilds, map[string]any{"id": id, "unavailable": true})
	}
	bot := s.w.userJSON(s.w.botID)
	sess.seq++
	c.pushRaw(dispatchFrame(sess.seq, "READY", map[string]any{
		"v": 9, "user": bot, "session_id": sess.id, "session_type": "normal",
		"resume_gateway_url": s.gatewayURL(), "guilds": guilds, "private_channels": []any{},
		"application": map[string]any{"id": s.w.botID, "flags": s.opts.appFlags},
	}))
	for _, id := range s.w.guildOrder {
		s.appendLocked(sess, event{t: "GUILD_CREATE", d: s.guildJSON(id), intent: intentGuilds})
	}
	backlog := s.gw.backlog
	s.gw.backlog = nil
	for _, ev := range backlog {
		s.appendLocked(sess, ev)
	}
}

// resumeSessionLocked answers a RESUME: every dispatch after seq, then RESUMED.
func (s *Server) resumeSessionLocked(c *gwConn, sess *session, seq int64) {
	if old := sess.conn; old != nil && old != c {
		old.sess = nil
		old.closeNow()
	}
	sess.conn = c
	c.sess = sess
	for _, l := range sess.log {
		if l.seq > seq {
			s.sendLocked(c, l)
		}
	}
	sess.seq++
	c.pushRaw(dispatchFrame(sess.seq, "RESUMED", map[string]any{}))
	if s.gw.current == nil {
		s.gw.current = sess
		backlog := s.gw.backlog
		s.gw.backlog = nil
		for _, ev := range backlog {
			s.appendLocked(sess, ev)
		}
	}
}

func (s *Server) guildJSON(id string) map[string]any {
	g := s.w.guilds[id]
	channels, threads := []wireChannel{}, []wireChannel{}
	for _, cid := range g.channels {
		c := s.w.channels[cid]
		if c.Type == channelThread {
			threads = append(threads, s.w.channelJSON(c))
		} else {
			channels = append(channels, s.w.channelJSON(c))
		}
	}
	return map[string]any{
		"id": g.id, "name": g.name, "unavailable": false, "owner_id": "1", "large": false,
		"member_count": len(s.w.users), "channels": channels, "threads": threads,
		"roles": []any{}, "emojis": []any{}, "stickers": []any{}, "features": []any{},
		"voice_states": []any{}, "presences": []any{},
	}
}

// messageIntent is the intent that carries message events of a channel.
func messageIntent(c *channel) int {
	if c.Type == channelDM {
		return intentDirectMessages
	}
	return intentGuildMessages
}

// emitMessageLocked dispatches MESSAGE_CREATE/UPDATE for m. Content is
// privileged except in DMs, in messages mentioning the bot and the bot's own.
func (s *Server) emitMessageLocked(t string, m *message) {
	c := s.w.channels[m.channelID]
	full := s.w.messageJSON(m, 0)
	if m.guildID != "" && m.webhookID == "" { // gateway messages carry the author's member
		full.Member = s.w.memberJSON(m.authorID, false, m.created)
	}
	ev := event{t: t, d: full, intent: messageIntent(c)}
	if c.Type != channelDM && m.authorID != s.w.botID && !containsID(m.mentions, s.w.botID) {
		stripped := full
		stripped.Content, stripped.Components = "", json.RawMessage("[]")
		ev.stripped = stripped
	}
	s.emitLocked(ev)
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// DropConnection closes the gateway websocket abruptly (no close frame), as
// a network failure would; discordgo reconnects and RESUMEs.
func (s *Server) DropConnection() {
	s.mu.Lock()
	var c *gwConn
	if cur := s.gw.current; cur != nil && cur.conn != nil {
		c = cur.conn
		cur.conn = nil
	}
	s.notifyLocked()
	s.mu.Unlock()
	if c != nil {
		c.closeNow()
	}
}

// RequestReconnect sends op 7: the client reconnects and RESUMEs.
func (s *Server) RequestReconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.gw.current; cur != nil && cur.conn != nil {
		cur.conn.push(frame{Op: opReconnect})
	}
}

// RequestHeartbeat sends op 1: the client must heartbeat at once.
func (s *Server) RequestHeartbeat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.gw.current; cur != nil && cur.conn != nil {
		cur.conn.push(frame{Op: opHeartbeat})
	}
}

// InvalidateSession sends op 9 (d: false) and forgets the session: the
// client identifies afresh, and dispatches until then wait for the new session.
func (s *Server) InvalidateSession() {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.gw.current
	if cur == nil {
		return
	}
	delete(s.gw.sessions, cur.id)
	s.gw.current = nil
	if c := cur.conn; c != nil {
		c.sess = nil
		cur.conn = nil
		c.push(frame{Op: opInvalidSession, D: false})
	}
	s.notifyLocked()
}
