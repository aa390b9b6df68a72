package discordtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// Gateway opcodes.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opPresenceUpdate = 3
	opVoiceState     = 4
	opResume         = 6
	opReconnect      = 7
	opRequestMembers = 8
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
)

// Gateway close codes the fake uses.
const (
	closeUnknownOpcode    websocket.StatusCode = 4001
	closeDecodeError      websocket.StatusCode = 4002
	closeNotAuthenticated websocket.StatusCode = 4003
	closeAuthFailed       websocket.StatusCode = 4004
	closeAlreadyAuthed    websocket.StatusCode = 4005
	closeInvalidShard     websocket.StatusCode = 4010
	closeShardingRequired websocket.StatusCode = 4011
	closeInvalidIntents   websocket.StatusCode = 4013
	closeDisallowedIntent websocket.StatusCode = 4014
)

// maxClientFrame bounds what the fake reads from a client; Discord's own
// limit is 4096 bytes, discordgo's frames stay far below it.
const maxClientFrame = 1 << 16

type outFrame struct {
	data   []byte
	code   websocket.StatusCode // non-zero: close with this code instead
	reason string
}

// gwConn is one gateway connection. Frames are queued under Server.mu and
// written in order by writeLoop, so senders never block on the network and
// the queue never drops a frame (a dropped dispatch would desync seq).
type gwConn struct {
	ws   *websocket.Conn
	mu   sync.Mutex
	q    []outFrame
	wake chan struct{}
	done chan struct{}
	once sync.Once
	// beat is closed at the connection's first heartbeat (beatOnce).
	beat     chan struct{}
	beatOnce sync.Once

	sess *session // guarded by Server.mu; nil until IDENTIFY/RESUME
}

func newGWConn(ws *websocket.Conn) *gwConn {
	return &gwConn{ws: ws, wake: make(chan struct{}, 1), done: make(chan struct{}), beat: make(chan struct{})}
}

func (c *gwConn) enqueue(f outFrame) {
	c.mu.Lock()
	c.q = append(c.q, f)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *gwConn) push(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic("discordtest: marshal gateway frame: " + err.Error()) // frames are built here; a failure is a bug
	}
	c.enqueue(outFrame{data: data})
}

func (c *gwConn) pushRaw(data []byte) { c.enqueue(outFrame{data: data}) }

func (c *gwConn) closeWith(code websocket.StatusCode, reason string) {
	c.enqueue(outFrame{code: code, reason: reason})
}

// closeNow drops the TCP connection without a close frame.
func (c *gwConn) closeNow() {
	c.once.Do(func() {
		close(c.done)
		_ = c.ws.CloseNow()
	})
}

func (c *gwConn) writeLoop(ctx context.Context) {
	for {
		select {
		case <-c.done:
			return
		case <-ctx.Done():
			c.closeNow()
			return
		case <-c.wake:
		}
		c.mu.Lock()
		q := c.q
		c.q = nil
		c.mu.Unlock()
		for _, f := range q {
			if f.code != 0 {
				_ = c.ws.Close(f.code, f.reason)
				c.closeNow()
				return
			}
			if err := c.ws.Write(ctx, websocket.MessageText, f.data); err != nil {
				c.closeNow()
				return
			}
		}
	}
}

type frame struct {
	Op int     `json:"op"`
	D  any     `json:"d"`
	S  *int64  `json:"s"`
	T  *string `json:"t"`
}

// serveGateway is the websocket endpoint: HELLO, then IDENTIFY or RESUME,
// then dispatches; heartbeats are ACKed.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if s.ctx.Err() != nil {
		http.Error(w, "closed", http.StatusServiceUnavailable)
		return
	}
	s.conns.Add(1)
	defer s.conns.Done()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept has answered the request
	}
	ws.SetReadLimit(maxClientFrame)
	c := newGWConn(ws)
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	if !s.awaitRelease(ctx) {
		_ = ws.CloseNow()
		return
	}

	s.mu.Lock()
	s.gw.conns[c] = struct{}{}
	c.push(frame{Op: opHello, D: map[string]int64{"heartbeat_interval": s.opts.heartbeat.Milliseconds()}})
	s.notifyLocked()
	s.mu.Unlock()

	var writer sync.WaitGroup
	writer.Go(func() { c.writeLoop(ctx) })
	s.readLoop(ctx, c)
	c.closeNow()
	writer.Wait()

	s.mu.Lock()
	delete(s.gw.conns, c)
	if c.sess != nil && c.sess.conn == c {
		c.sess.conn = nil
	}
	s.notifyLocked()
	s.mu.Unlock()
}

func (s *Server) readLoop(ctx context.Context, c *gwConn) {
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			return
		}
		var p struct {
			Op *int            `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		s.mu.Lock()
		if typ != websocket.MessageText || json.Unmarshal(data, &p) != nil || p.Op == nil {
			c.closeWith(closeDecodeError, "Error while decoding payload.")
		} else {
			s.handleOpLocked(c, *p.Op, p.D)
		}
		s.notifyLocked()
		s.mu.Unlock()
	}
}

func (s *Server) handleOpLocked(c *gwConn, op int, d json.RawMessage) {
	switch op {
	case opHeartbeat:
		s.gw.heartbeats++
		c.beatOnce.Do(func() { close(c.beat) })
		c.push(frame{Op: opHeartbeatACK})
	case opIdentify:
		if c.sess != nil {
			c.closeWith(closeAlreadyAuthed, "Already authenticated.")
			return
		}
		s.identifyLocked(c, d)
	case opResume:
		if c.sess != nil {
			c.closeWith(closeAlreadyAuthed, "Already authenticated.")
			return
		}
		s.resumeLocked(c, d)
	case opPresenceUpdate, opVoiceState, opRequestMembers:
		if c.sess == nil {
			c.closeWith(closeNotAuthenticated, "Not authenticated.")
		}
	default:
		c.closeWith(closeUnknownOpcode, "Unknown opcode.")
	}
}

func (s *Server) tokenOK(token string) bool {
	return strings.TrimPrefix(token, "Bot ") == s.opts.token
}

// Intents the fake checks.
const (
	intentGuilds          = 1 << 0
	intentGuildMembers    = 1 << 1
	intentGuildPresences  = 1 << 8
	intentGuildMessages   = 1 << 9
	intentDirectMessages  = 1 << 12
	intentMessageContent  = 1 << 15
	maxIntents            = 1 << 26
	appFlagPresence       = 1<<12 | 1<<13
	appFlagGuildMembers   = 1<<14 | 1<<15
	appFlagMessageContent = 1<<18 | appFlagGatewayMessageContentLimited
)

// checkIntents returns the close code for intents Discord would refuse.
func (s *Server) checkIntents(intents *int) (websocket.StatusCode, string) {
	if intents == nil || *intents < 0 || *intents >= maxIntents {
		return closeInvalidIntents, "Invalid intent(s)."
	}
	flags := s.opts.appFlags
	for _, p := range []struct{ intent, flags int }{
		{intentGuildMembers, appFlagGuildMembers},
		{intentGuildPresences, appFlagPresence},
		{intentMessageContent, appFlagMessageContent},
	} {
		if *intents&p.intent != 0 && flags&p.flags == 0 {
			return closeDisallowedIntent, "Disallowed intent(s)."
		}
	}
	return 0, ""
}

func (s *Server) identifyLocked(c *gwConn, d json.RawMessage) {
	var id struct {
		Token   string  `json:"token"`
		Intents *int    `json:"intents"`
		Shard   *[2]int `json:"shard"`
	}
	if json.Unmarshal(d, &id) != nil {
		c.closeWith(closeDecodeError, "Error while decoding payload.")
		return
	}
	if !s.tokenOK(id.Token) {
		c.closeWith(closeAuthFailed, "Authentication failed.")
		return
	}
	if code, reason := s.checkIntents(id.Intents); code != 0 {
		c.closeWith(code, reason)
		return
	}
	shard, shards := 0, 1
	if id.Shard != nil {
		shard, shards = id.Shard[0], id.Shard[1]
	}
	if code, reason := s.checkShard(shard, shards); code != 0 {
		c.closeWith(code, reason)
		return
	}
	s.gw.identifies[shard]++
	s.gw.intents = *id.Intents
	s.startSessionLocked(c, *id.Intents, shard, shards)
}

// maxShards bounds the shard count the fake accepts.
const maxShards = 1024

// checkShard returns the close code for a shard Discord would refuse:
// one outside [0, shards), or too few shards for the bot's guilds.
func (s *Server) checkShard(shard, shards int) (websocket.StatusCode, string) {
	if shards < 1 || shards > maxShards || shard < 0 || shard >= shards {
		return closeInvalidShard, "Invalid shard."
	}
	if shards < s.opts.requiredShards {
		return closeShardingRequired, "Sharding required."
	}
	return 0, ""
}

func (s *Server) resumeLocked(c *gwConn, d json.RawMessage) {
	var res struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if json.Unmarshal(d, &res) != nil {
		c.closeWith(closeDecodeError, "Error while decoding payload.")
		return
	}
	if !s.tokenOK(res.Token) {
		c.closeWith(closeAuthFailed, "Authentication failed.")
		return
	}
	sess, ok := s.gw.sessions[res.SessionID]
	if !ok {
		c.push(frame{Op: opInvalidSession, D: false})
		return
	}
	s.gw.resumes++
	s.resumeSessionLocked(c, sess, res.Seq)
}
