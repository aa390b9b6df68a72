package slacktest

import (
	"context"
	"encoding/json"
	"net/http"
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
}

// socketState is guarded by Server.mu.
type socketState struct {
	tickets      map[string]bool
	conns        map[*wsConn]struct{}
	current      *wsConn // envelopes go to the newest connection
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
		conns:        map[*wsConn]struct{}{},
		pending:      map[string]*pendingEnv{},
		responseURLs: map[string]responseTarget{},
		slash:        map[string]responseTarget{},
	}
}

func (ss *socketState) allConns() []*wsConn {
	out := make([]*wsConn, 0, len(ss.conns))
	for c := range ss.conns {
		out = append(out, c)
	}
	return out
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
}

func (c *wsConn) closeNow() {
	c.once.Do(func() {
		close(c.done)
		_ = c.c.CloseNow()
	})
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
	s.sock.conns[conn] = struct{}{}
	s.sock.current = conn
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
	delete(s.sock.conns, conn)
	if s.sock.current == conn {
		s.sock.current = nil
	}
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

// sendLocked writes the envelope to the current connection and arms the ack
// deadline; without a connection it waits in the queue.
func (s *Server) sendLocked(p *pendingEnv) {
	conn := s.sock.current
	if conn == nil || s.ctx.Err() != nil {
		s.sock.queued = append(s.sock.queued, p.env.EnvelopeID)
		return
	}
	frame, _ := json.Marshal(p.env)
	s.sock.delivered = append(s.sock.delivered, p.env)
	conn.push(frame)
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

// Disconnect asks the connected client to reconnect, as Slack does before
// rotating a connection ({"type":"disconnect","reason":"refresh_requested"}).
func (s *Server) Disconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.sock.current; c != nil {
		frame, _ := json.Marshal(map[string]any{
			"type": "disconnect", "reason": "refresh_requested",
			"debug_info": map[string]any{"host": "slacktest"},
		})
		c.push(frame)
	}
}

// DropConnection closes the current socket abruptly (no close frame), like a
// network failure.
func (s *Server) DropConnection() {
	s.mu.Lock()
	c := s.sock.current
	s.sock.current = nil
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
	return s.sock.current != nil
}
