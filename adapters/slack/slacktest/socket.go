package slacktest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Envelope is one Socket Mode message the fake sent (or will send), in
// Slack's wire shape.
type Envelope struct {
	Type                   string          `json:"type"` // events_api, interactive, slash_commands
	EnvelopeID             string          `json:"envelope_id"`
	Payload                json.RawMessage `json:"payload"`
	AcceptsResponsePayload bool            `json:"accepts_response_payload"`
	RetryAttempt           int             `json:"retry_attempt"`
	RetryReason            string          `json:"retry_reason"`
}

// Ack is one acknowledgement the client sent over the socket.
type Ack struct {
	EnvelopeID string
	Payload    json.RawMessage // nil when the ack carried none
	Time       time.Time
}

type pendingEnv struct {
	env   Envelope
	timer *time.Timer // redelivery deadline; nil while waiting for a connection
	// over are the connections the envelope was written to, in order: a
	// redelivery goes over another one when there is one.
	over []*wsConn
}

// socketState is guarded by Server.mu.
type socketState struct {
	tickets map[string]bool
	// conns are the open connections, oldest first. Several at once are
	// one app's several Socket Mode connections (Slack allows up to 10):
	// each new envelope goes over the next one in turn.
	conns        []*wsConn
	turn         int // round-robin position in conns
	connects     int
	pending      map[string]*pendingEnv // sent or queued, not acked yet
	queued       []string               // envelope ids waiting for a connection
	delivered    []Envelope
	acks         []Ack
	responseURLs map[string]responseTarget
	slash        map[string]responseTarget // slash envelope id → where its ack payload shows
}

func newSocketState() *socketState {
	return &socketState{
		tickets:      map[string]bool{},
		pending:      map[string]*pendingEnv{},
		responseURLs: map[string]responseTarget{},
		slash:        map[string]responseTarget{},
	}
}

func (ss *socketState) allConns() []*wsConn {
	return slices.Clone(ss.conns)
}

// live are the connections an envelope may go over: open ones, those not
// told to disconnect first (a connection being refreshed takes envelopes
// only while it is the only one).
func (ss *socketState) live() []*wsConn {
	var open, leaving []*wsConn
	for _, c := range ss.conns {
		switch {
		case c.closed():
		case c.leaving:
			leaving = append(leaving, c)
		default:
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		return leaving
	}
	return open
}

// newest is the most recently opened connection still open, or nil.
func (ss *socketState) newest() *wsConn {
	for i := len(ss.conns) - 1; i >= 0; i-- {
		if c := ss.conns[i]; !c.closed() {
			return c
		}
	}
	return nil
}

// pick chooses the connection for p: the next one in turn, passing over
// those p already went over while another is left (a redelivery goes
// over a different connection when there is one); nil when none is open.
func (ss *socketState) pick(p *pendingEnv) *wsConn {
	live := ss.live()
	if len(live) == 0 {
		return nil
	}
	for range live {
		c := live[ss.turn%len(live)]
		ss.turn++
		if !slices.Contains(p.over, c) {
			return c
		}
	}
	// Every live connection had it: any but the last it went over.
	c := live[ss.turn%len(live)]
	ss.turn++
	if len(live) > 1 && len(p.over) > 0 && c == p.over[len(p.over)-1] {
		c = live[ss.turn%len(live)]
		ss.turn++
	}
	return c
}

func (ss *socketState) stopTimers() {
	for _, p := range ss.pending {
		if p.timer != nil {
			p.timer.Stop()
		}
	}
}

// wsConn is one client connection: a writer goroutine drains out so that
// frames leave in the order they were queued under Server.mu.
type wsConn struct {
	c    *websocket.Conn
	out  chan []byte
	done chan struct{}
	once sync.Once
	// leaving is set (under Server.mu) once the connection was told to
	// disconnect: it gets envelopes only while no other is open.
	leaving bool
}

// closed reports whether the connection was closed (by either side).
func (c *wsConn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *wsConn) closeNow() {
	c.markClosed()
	_ = c.c.CloseNow() // a second close only returns an error
}

// markClosed takes the connection out of use (closed reports true) without
// touching the socket, so it can be done under Server.mu.
func (c *wsConn) markClosed() {
	c.once.Do(func() { close(c.done) })
}

// push queues a frame without blocking; a full queue drops the frame, which
// the redelivery timer then covers, as a lost frame would be on real Slack.
func (c *wsConn) push(frame []byte) {
	select {
	case c.out <- frame:
	default:
	}
}

func (s *Server) appsConnectionsOpen(_ apiRequest) result {
	ticket := s.st.nextID("ticket-")
	s.sock.tickets[ticket] = true
	return result{"url": s.wsURL(ticket)}
}

// serveSocket is the Socket Mode endpoint: hello, then envelopes; acks are
// read back; pings keep slack-go's keepalive happy.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	known := s.sock.tickets[r.URL.Query().Get("ticket")]
	s.mu.Unlock()
	if !known {
		http.Error(w, "unknown ticket", http.StatusUnauthorized)
		return
	}
	// slack-go dials with Origin: https://api.slack.com.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: []string{"api.slack.com"}})
	if err != nil {
		return // Accept has already answered the HTTP request
	}
	conn := &wsConn{c: c, out: make(chan []byte, 1024), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()

	s.mu.Lock()
	s.sock.conns = append(s.sock.conns, conn)
	s.sock.connects++
	hello, _ := json.Marshal(map[string]any{
		"type":            "hello",
		"num_connections": len(s.sock.conns),
		"debug_info":      map[string]any{"host": "slacktest", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": s.opts.appID},
	})
	conn.push(hello)
	// Envelopes raised while no client was connected go out now.
	queued := s.sock.queued
	s.sock.queued = nil
	for _, id := range queued {
		if p, ok := s.sock.pending[id]; ok {
			s.sendLocked(p)
		}
	}
	s.notifyLocked()
	s.mu.Unlock()

	go s.writeLoop(ctx, conn)
	go s.pingLoop(ctx, conn)
	s.readLoop(ctx, conn)

	conn.closeNow()
	s.mu.Lock()
	s.sock.conns = slices.DeleteFunc(s.sock.conns, func(c *wsConn) bool { return c == conn })
	s.notifyLocked()
	s.mu.Unlock()
}

func (s *Server) writeLoop(ctx context.Context, conn *wsConn) {
	for {
		select {
		case <-conn.done:
			return
		case <-ctx.Done():
			conn.closeNow()
			return
		case frame := <-conn.out:
			if err := conn.c.Write(ctx, websocket.MessageText, frame); err != nil {
				conn.closeNow()
				return
			}
		}
	}
}

// pingLoop sends WebSocket pings; slack-go reconnects if none arrive within
// its ping interval. coder/websocket's Ping needs readLoop running to see
// the pong.
func (s *Server) pingLoop(ctx context.Context, conn *wsConn) {
	t := time.NewTicker(s.opts.pingInterval)
	defer t.Stop()
	for {
		if err := conn.c.Ping(ctx); err != nil {
			return
		}
		select {
		case <-conn.done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) readLoop(ctx context.Context, conn *wsConn) {
	for {
		_, data, err := conn.c.Read(ctx)
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(data, &ack); err != nil || ack.EnvelopeID == "" {
			continue // Slack ignores frames it does not understand
		}
		s.mu.Lock()
		s.ackLocked(ack.EnvelopeID, ack.Payload)
		s.notifyLocked()
		s.mu.Unlock()
	}
}

func (s *Server) ackLocked(id string, payload json.RawMessage) {
	if string(payload) == "null" {
		payload = nil
	}
	s.sock.acks = append(s.sock.acks, Ack{EnvelopeID: id, Payload: payload, Time: s.now()})
	if p, ok := s.sock.pending[id]; ok {
		if p.timer != nil {
			p.timer.Stop()
		}
		delete(s.sock.pending, id)
	}
	t, isSlash := s.sock.slash[id]
	if !isSlash || payload == nil {
		return
	}
	delete(s.sock.slash, id) // a redelivered command's second ack shows nothing new
	var body struct {
		Text         string          `json:"text"`
		Blocks       json.RawMessage `json:"blocks"`
		ResponseType string          `json:"response_type"`
	}
	if json.Unmarshal(payload, &body) != nil {
		return
	}
	if body.ResponseType == "in_channel" {
		s.st.addMessage(&Message{Channel: t.channel, TS: s.st.nextTS(), User: s.opts.botUserID,
			BotID: s.opts.botID, Text: body.Text, Blocks: body.Blocks})
		return
	}
	s.st.ephemeral[t.user] = append(s.st.ephemeral[t.user], Ephemeral{
		Channel: t.channel, User: t.user, TS: s.st.nextTS(), Text: body.Text, Blocks: body.Blocks, Source: "slash_ack",
	})
}

// enqueueLocked registers a new envelope and sends it (or queues it until a
// client connects).
func (s *Server) enqueueLocked(typ string, payload any, acceptsResponse bool) string {
	raw, err := json.Marshal(payload)
	if err != nil {
		panic("slacktest: marshal payload: " + err.Error()) // payloads are built here; a failure is a bug
	}
	id := s.st.nextID("env-")
	p := &pendingEnv{env: Envelope{Type: typ, EnvelopeID: id, Payload: raw, AcceptsResponsePayload: acceptsResponse}}
	s.sock.pending[id] = p
	s.sendLocked(p)
	s.notifyLocked()
	return id
}

// sendLocked writes the envelope to the next connection in turn (a
// redelivery to one it did not go over yet, when there is one) and arms
// the ack deadline; without a connection it waits in the queue.
func (s *Server) sendLocked(p *pendingEnv) {
	var conn *wsConn
	if s.ctx.Err() == nil {
		conn = s.sock.pick(p)
	}
	if conn == nil {
		s.sock.queued = append(s.sock.queued, p.env.EnvelopeID)
		return
	}
	frame, _ := json.Marshal(p.env)
	s.sock.delivered = append(s.sock.delivered, p.env)
	conn.push(frame)
	p.over = append(p.over, conn)
	id := p.env.EnvelopeID
	p.timer = time.AfterFunc(s.opts.ackTimeout, func() { s.redeliver(id) })
}

// redeliver resends an envelope whose ack is late, as Slack does, with
// retry_attempt+1 and retry_reason "timeout", up to the retry limit.
func (s *Server) redeliver(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.sock.pending[id]
	if !ok || s.ctx.Err() != nil {
		return
	}
	if p.env.RetryAttempt >= s.opts.maxRetries {
		delete(s.sock.pending, id) // Slack gives up on the event
		s.notifyLocked()
		return
	}
	p.env.RetryAttempt++
	p.env.RetryReason = "timeout"
	s.sendLocked(p)
	s.notifyLocked()
}

// Disconnect asks the client on the newest connection to reconnect, as
// Slack does before rotating a connection
// ({"type":"disconnect","reason":"refresh_requested"}). From then on that
// connection takes envelopes only while no other is open.
func (s *Server) Disconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.sock.newest(); c != nil {
		c.leaving = true
		frame, _ := json.Marshal(map[string]any{
			"type": "disconnect", "reason": "refresh_requested",
			"debug_info": map[string]any{"host": "slacktest"},
		})
		c.push(frame)
	}
}

// DropConnection closes the newest socket abruptly (no close frame), like a
// network failure. Envelopes it carried and that were not acked are
// redelivered once their ack is late, over another connection if one is
// open.
func (s *Server) DropConnection() {
	s.mu.Lock()
	c := s.sock.newest()
	if c != nil {
		c.markClosed() // under mu: no envelope goes over it from now on
	}
	s.mu.Unlock()
	if c != nil {
		c.closeNow()
	}
}

// Connections is how many Socket Mode connections have been opened so far
// (each got a hello); wait for it to grow to see a reconnect.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sock.connects
}

// Connected reports whether a client is connected right now.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sock.newest() != nil
}

// OpenConnections is how many Socket Mode connections are open right now:
// one per client (a replica) connected.
func (s *Server) OpenConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.sock.conns {
		if !c.closed() {
			n++
		}
	}
	return n
}
