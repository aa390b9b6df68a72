// Package holdgate holds back the answers of calls that took effect, for
// the platform fakes: a crash test holds the answer of the call it wants
// to kill Parley after, kills Parley while the answer is held, and lets it
// go (to nobody) before the restart. The message exists, and Parley never
// learnt its id: the crash "between the call and recording its result".
package holdgate

import (
	"context"
	"sync"
)

// Gate holds answers by call name (a method, a route). The zero Gate holds
// nothing until Next is called. Safe for concurrent use.
type Gate struct {
	mu      sync.Mutex
	next    map[string]int // name → how many of its next calls to hold
	held    int
	release chan struct{} // closed by Release
}

// Next holds the answer of the next call of name.
func (g *Gate) Next(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.next == nil {
		g.next = map[string]int{}
	}
	if g.release == nil {
		g.release = make(chan struct{})
	}
	g.next[name]++
}

// Held is how many answers are held now.
func (g *Gate) Held() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// Release lets every held answer go on and drops the holds still asked for.
func (g *Gate) Release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release != nil {
		close(g.release)
		g.release = nil
	}
	clear(g.next)
}

// Hold holds the answer of a call of name that took effect, when Next
// asked for it, until Release or either context ends (the client went
// away; the fake closes). changed is called whenever Held changes, so the
// fake's WaitFor looks again.
func (g *Gate) Hold(call, server context.Context, name string, changed func()) {
	g.mu.Lock()
	if g.next[name] == 0 {
		g.mu.Unlock()
		return
	}
	g.next[name]--
	g.held++
	release := g.release
	g.mu.Unlock()
	changed()
	select {
	case <-release:
	case <-call.Done():
	case <-server.Done():
	}
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
	changed()
}
