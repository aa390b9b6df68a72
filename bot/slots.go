package bot

import (
	"context"
	"sync"
)

// fairSlots hands out the MaxConcurrent turn slots fairly between people:
// when a slot frees, it goes to the waiting person who holds the fewest
// slots, the earliest waiter among equals. One person opening two hundred
// conversations then waits behind everyone else's first turn instead of
// filling every slot (a plain FIFO would serve their backlog first).
type fairSlots struct {
	mu      sync.Mutex
	free    int
	held    map[string]int // slots held, by person (User.Key)
	waiting []*slotWaiter  // in arrival order
}

type slotWaiter struct {
	who   string
	ready chan struct{} // closed when the slot is granted
}

func newFairSlots(n int) *fairSlots {
	return &fairSlots{free: n, held: map[string]int{}}
}

// acquire blocks until who is granted a slot, or ctx ends (then it holds
// none).
func (s *fairSlots) acquire(ctx context.Context, who string) error {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.held[who]++
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{who: who, ready: make(chan struct{})}
	s.waiting = append(s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, q := range s.waiting {
			if q == w {
				s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
				return ctx.Err()
			}
		}
		// Granted just as ctx ended: hand it on.
		s.releaseLocked(who)
		return ctx.Err()
	}
}

// release returns who's slot and grants it to the fairest waiter.
func (s *fairSlots) release(who string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(who)
}

func (s *fairSlots) releaseLocked(who string) {
	if s.held[who]--; s.held[who] <= 0 {
		delete(s.held, who)
	}
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	best := 0
	for i, w := range s.waiting[1:] {
		if s.held[w.who] < s.held[s.waiting[best].who] {
			best = i + 1
		}
	}
	w := s.waiting[best]
	s.waiting = append(s.waiting[:best], s.waiting[best+1:]...)
	s.held[w.who]++
	close(w.ready)
}
