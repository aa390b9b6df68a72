package holdgate

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestGate: only the calls asked for are held, each until Release or its
// client goes away; Held counts them and changed hears of every change.
func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Gate
		changes := 0
		changed := func() { changes++ }
		server := t.Context()

		g.Hold(server, server, "sendMessage", changed) // nothing asked: returns at once
		g.Next("sendMessage")
		g.Hold(server, server, "editMessageText", changed) // another name: not held
		if changes != 0 {
			t.Fatalf("%d changes before anything was held", changes)
		}

		done := make(chan struct{})
		go func() { g.Hold(server, server, "sendMessage", changed); close(done) }()
		synctest.Wait()
		if g.Held() != 1 {
			t.Fatalf("Held = %d, want 1", g.Held())
		}
		g.Release()
		<-done
		if g.Held() != 0 || changes != 2 {
			t.Errorf("after Release: Held %d, %d changes; want 0 and 2", g.Held(), changes)
		}

		g.Next("sendMessage")
		call, hangUp := context.WithCancel(server)
		gone := make(chan struct{})
		go func() { g.Hold(call, server, "sendMessage", func() {}); close(gone) }()
		synctest.Wait()
		hangUp() // the client was killed
		<-gone
		if g.Held() != 0 {
			t.Errorf("a call whose client went away is still held")
		}
	})
}
