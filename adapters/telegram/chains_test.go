package telegram

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestChainSendsWait: a reply to the bot's message waits for the sends of
// its chat still recording their chain, at most chainWait, and not at all
// for another chat's.
func TestChainSendsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c chainSends
		start := time.Now()
		c.wait(t.Context(), -1) // nothing in flight
		end := c.begin(-1)
		c.wait(t.Context(), -2) // another chat
		if d := time.Since(start); d != 0 {
			t.Fatalf("waited %s with nothing in flight in the chat", d)
		}
		go func() {
			time.Sleep(300 * time.Millisecond)
			end()
		}()
		c.wait(t.Context(), -1)
		if d := time.Since(start); d != 300*time.Millisecond {
			t.Errorf("waited %s, want until the send ended (300ms)", d)
		}
		c.begin(-1) // never ends
		start = time.Now()
		c.wait(t.Context(), -1)
		if d := time.Since(start); d != chainWait {
			t.Errorf("waited %s for a send that never ends, want %s", d, chainWait)
		}
	})
}
