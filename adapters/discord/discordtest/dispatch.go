package discordtest

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
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
	// id is what the event is about (a message, a channel, an
	// interaction), guild the guild it belongs to ("" for DMs): the
	// shard it goes to (shardOf).
	id, guild string
}

type logged struct {
	seq           int64
	data          []byte
	interactionID string
}

// session is a gateway session: it outlives its connections so that a
// RESUME can replay what the client missed.
type session struct {
	id            string
	intents       int
	shard, shards int // as identified: [shard, shards]
	seq           int64
	log           []logged
	conn          *gwConn // nil while the client is away
}

// gateway is guarded by Server.mu.
type gateway struct {
	conns    map[*gwConn]struct{}
	sessions map[string]*session
	current  map[int]*session // shard → the session receiving its new dispatches
	shards   int              // the shard count of the last IDENTIFY (1 before any)
	backlog  []event          // produced while their shard had no session
	hold     chan struct{}    // non-nil: new connections wait for it before HELLO
	held     int              // connections waiting on hold
	// identifies counts the accepted IDENTIFYs per shard.
	identifies map[int]int
	dispatches []Dispatch
	resumes    int
	heartbeats int
	intents    int
}

func newGateway() *gateway {
	return &gateway{conns: map[*gwConn]struct{}{}, sessions: map[string]*session{},
		current: map[int]*session{}, shards: 1, identifies: map[int]int{}}
}

// currentSessions are the sessions receiving new dispatches, by shard.
func (g *gateway) currentSessions() []*session {
	out := make([]*session, 0, len(g.current))
	for _, sess := range g.current {
		out = append(out, sess)
	}
	return out
}

// shardOf is the shard of shards that Discord sends guild's events to:
// (guild_id >> 22) % shards; DMs (guild "") go to shard 0.
func shardOf(guild string, shards int) int {
	id, err := strconv.ParseUint(guild, 10, 64)
	if err != nil || shards <= 1 {
		return 0
	}
	return int((id >> 22) % uint64(shards))
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

// emitLocked dispatches ev to the current session of its shard, or keeps
// it for the shard's next IDENTIFY when there is none.
func (s *Server) emitLocked(ev event) {
	cur := s.gw.current[shardOf(ev.guild, s.gw.shards)]
	if cur == nil {
		s.gw.backlog = append(s.gw.backlog, ev)
		return
	}
	s.appendLocked(cur, ev)
}

// takeBacklogLocked hands sess the events produced for its shard while
// the shard had no session.
func (s *Server) takeBacklogLocked(sess *session) {
	var keep []event
	for _, ev := range s.gw.backlog {
		if shardOf(ev.guild, sess.shards) == sess.shard {
			s.appendLocked(sess, ev)
		} else {
			keep = append(keep, ev)
		}
	}
	s.gw.backlog = keep
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
	s.gw.dispatches = append(s.gw.dispatches, Dispatch{Shard: sess.shard, Type: ev.t, ID: ev.id, GuildID: ev.guild})
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

// startSessionLocked answers an IDENTIFY of shard [shard, shards]: READY,
// one GUILD_CREATE per guild of the shard, then whatever was produced for
// the shard while it had no session.
func (s *Server) startSessionLocked(c *gwConn, intents, shard, shards int) {
	sess := &session{id: s.newSessionID(), intents: intents, shard: shard, shards: shards, conn: c}
	s.gw.sessions[sess.id] = sess
	s.gw.shards = shards
	s.gw.current[shard] = sess
	c.sess = sess

	var mine []string
	for _, id := range s.w.guildOrder {
		if shardOf(id, shards) == shard {
			mine = append(mine, id)
		}
	}
	guilds := make([]map[string]any, 0, len(mine))
	for _, id := range mine {
		guilds = append(guilds, map[string]any{"id": id, "unavailable": true})
	}
	bot := s.w.userJSON(s.w.botID)
	sess.seq++
	c.pushRaw(dispatchFrame(sess.seq, "READY", map[string]any{
		"v": 9, "user": bot, "session_id": sess.id, "session_type": "normal",
		"resume_gateway_url": s.gatewayURL(), "guilds": guilds, "private_channels": []any{},
		"application": map[string]any{"id": s.w.botID, "flags": s.opts.appFlags},
		"shard":       [2]int{shard, shards},
	}))
	for _, id := range mine {
		s.appendLocked(sess, event{t: "GUILD_CREATE", d: s.guildJSON(id), intent: intentGuilds, id: id, guild: id})
	}
	s.takeBacklogLocked(sess)
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
	if s.gw.current[sess.shard] == nil {
		s.gw.current[sess.shard] = sess
		s.takeBacklogLocked(sess)
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
		"member_count": s.w.memberCount(g), "channels": channels, "threads": threads,
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
	ev := event{t: t, d: full, intent: messageIntent(c), id: m.id, guild: m.guildID}
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

// DropConnection closes the gateway websocket of every shard abruptly (no
// close frame), as a network failure would; discordgo reconnects and
// RESUMEs.
func (s *Server) DropConnection() { s.dropConnections(-1) }

// DropShard is DropConnection for shard's connection alone.
func (s *Server) DropShard(shard int) { s.dropConnections(shard) }

// dropConnections drops the connection of shard, or of all (-1).
func (s *Server) dropConnections(shard int) {
	s.afterFirstBeats(shard)
	s.mu.Lock()
	var drop []*gwConn
	for _, cur := range s.gw.currentSessions() {
		if (shard < 0 || cur.shard == shard) && cur.conn != nil {
			drop = append(drop, cur.conn)
			cur.conn = nil
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range drop {
		c.closeNow()
	}
}

// RequestReconnect sends op 7 on every shard: the client reconnects and RESUMEs.
func (s *Server) RequestReconnect() {
	s.afterFirstBeats(-1)
	s.pushToShards(frame{Op: opReconnect})
}

// RequestHeartbeat sends op 1 on every shard: the client must heartbeat at once.
func (s *Server) RequestHeartbeat() { s.pushToShards(frame{Op: opHeartbeat}) }

func (s *Server) pushToShards(f frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cur := range s.gw.currentSessions() {
		if cur.conn != nil {
			cur.conn.push(f)
		}
	}
}

// InvalidateSession sends op 9 (d: false) on every shard and forgets their
// sessions: the client identifies afresh, and dispatches until then wait
// for the new sessions.
func (s *Server) InvalidateSession() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cur := range s.gw.currentSessions() {
		delete(s.gw.sessions, cur.id)
		delete(s.gw.current, cur.shard)
		if c := cur.conn; c != nil {
			c.sess = nil
			cur.conn = nil
			c.push(frame{Op: opInvalidSession, D: false})
		}
	}
	s.notifyLocked()
}
