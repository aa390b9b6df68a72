package telegramtest

import "context"

// HoldAnswerNext makes the next call of method take effect and then hold
// its answer until ReleaseAnswers, until the client goes away, or Close: a
// crash test kills Parley meanwhile (internal/holdgate).
func (s *Server) HoldAnswerNext(method string) { s.holds.Next(method) }

// HeldAnswers is how many answers are held back now; WaitFor sees it change.
func (s *Server) HeldAnswers() int { return s.holds.Held() }

// ReleaseAnswers lets every held answer go on.
func (s *Server) ReleaseAnswers() { s.holds.Release() }

// holdAnswer holds the answer of a call that took effect, when asked to.
func (s *Server) holdAnswer(ctx context.Context, name string) {
	s.holds.Hold(ctx, s.ctx, name, func() {
		s.mu.Lock()
		s.notifyLocked()
		s.mu.Unlock()
	})
}
