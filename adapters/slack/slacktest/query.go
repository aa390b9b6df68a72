package slacktest

import (
	"encoding/json"
	"maps"
	"net/url"
)

// Calls returns every Web API call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Call, len(s.calls))
	for i, c := range s.calls {
		c.Params = url.Values(maps.Clone(map[string][]string(c.Params)))
		out[i] = c
	}
	return out
}

// CallsTo returns the calls of one method, in order.
func (s *Server) CallsTo(method string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Messages returns every message in channel (top-level messages and thread
// replies) in ts order, as people see them now; deleted ones are left out.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.st.messages[channel] {
		if !m.Deleted {
			out = append(out, *m)
		}
	}
	return out
}

// Thread returns the root message ts and its replies, in ts order.
func (s *Server) Thread(channel, ts string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threadLocked(channel, ts)
}

func (s *Server) threadLocked(channel, ts string) []Message {
	var out []Message
	for _, m := range s.st.messages[channel] {
		if !m.Deleted && (m.TS == ts || m.ThreadTS == ts) {
			out = append(out, *m)
		}
	}
	return out
}

// Ephemerals returns the "only visible to you" messages user has received.
func (s *Server) Ephemerals(user string) []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ephemeral(nil), s.st.ephemeral[user]...)
}

// Acks returns every ack the client sent, in order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ack(nil), s.sock.acks...)
}

// Delivered returns every envelope written to a socket, redeliveries included.
func (s *Server) Delivered() []Envelope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Envelope(nil), s.sock.delivered...)
}

// AssistantStatus is the thread's current assistant.threads.setStatus text
// ("" once cleared or after the app replied).
func (s *Server) AssistantStatus(channel, threadTS string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.status[channel+"/"+threadTS]
}

// AssistantTitle is the title set with assistant.threads.setTitle.
func (s *Server) AssistantTitle(channel, threadTS string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.titles[channel+"/"+threadTS]
}

// SuggestedPrompts is the prompts JSON set with assistant.threads.setSuggestedPrompts.
func (s *Server) SuggestedPrompts(channel, threadTS string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.prompts[channel+"/"+threadTS]
}
