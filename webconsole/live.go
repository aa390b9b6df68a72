package webconsole

import (
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// Live is what this replica has in hand now, for the overview: the chat
// core's load (bot.Core) and the platforms' connections.
type Live interface {
	Load() bot.Load
}

// live is the running core and its adapters, once UseLive has them.
type live struct {
	core     Live
	adapters []chat.Adapter
}

// UseLive gives the overview this replica's core and adapters, once the
// core runs.
func (s *Server) UseLive(core Live, adapters []chat.Adapter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live = &live{core: core, adapters: adapters}
}

// platform is one adapter as the overview shows it.
type platform struct {
	Name      string
	Connected bool
}

// now is the overview's figures of this replica: nil before the core runs.
func (s *Server) now() (*bot.Load, []platform) {
	s.mu.Lock()
	l := s.live
	s.mu.Unlock()
	if l == nil {
		return nil, nil
	}
	load := l.core.Load()
	var ps []platform
	for _, a := range l.adapters {
		// An adapter that cannot tell counts as connected, as /readyz has it.
		c, ok := a.(chat.Connection)
		ps = append(ps, platform{Name: a.Platform(), Connected: !ok || c.Connected()})
	}
	return &load, ps
}
