package bot

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestFairSlots: a person who already holds slots does not get the next
// one ahead of someone who holds none, even if they asked first; among
// equals, the earliest waiter goes first.
func TestFairSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFairSlots(2)
		ctx := context.Background()
		s.acquire(ctx, "ann")
		s.acquire(ctx, "ann") // ann's two conversations run
		granted := make(chan string, 4)
		for _, who := range []string{"ann", "ann", "bob", "cy"} {
			go func() {
				if s.acquire(ctx, who) == nil {
					granted <- who
				}
			}()
			synctest.Wait() // queued in this order
		}
		s.release("ann") // ann holds 1; bob and cy hold none
		synctest.Wait()
		if who := <-granted; who != "bob" {
			t.Fatalf("the freed slot went to %s, want bob (holds none, asked before cy)", who)
		}
		s.release("ann") // ann holds 0, bob 1, cy 0: cy or ann, the earliest of those holding least
		synctest.Wait()
		if who := <-granted; who != "ann" {
			t.Fatalf("the next slot went to %s, want ann (holds none, asked before cy)", who)
		}
		s.release("bob") // ann 1, cy 0
		synctest.Wait()
		if who := <-granted; who != "cy" {
			t.Fatalf("the next slot went to %s, want cy", who)
		}
		s.release("cy")
		if who := <-granted; who != "ann" {
			t.Fatalf("the last slot went to %s, want ann", who)
		}
	})
}

// TestFairSlotsCancelled: a waiter whose context ends leaves the queue
// and holds nothing.
func TestFairSlotsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFairSlots(1)
		s.acquire(context.Background(), "ann")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- s.acquire(ctx, "bob") }()
		synctest.Wait()
		cancel()
		if err := <-done; err == nil {
			t.Fatal("a cancelled waiter got a slot")
		}
		s.release("ann")
		if s.free != 1 || len(s.held) != 0 || len(s.waiting) != 0 {
			t.Fatalf("after release: free %d, held %v, waiting %d", s.free, s.held, len(s.waiting))
		}
	})
}
