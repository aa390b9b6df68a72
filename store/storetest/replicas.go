package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// beat is a step calling Beat by replica at epoch+at, counting since
// epoch+since, which must return live.
func beat(on int, replica string, at, since time.Duration, live int) step {
	return step{on, fmt.Sprintf("Beat(%q, +%v, since +%v)", replica, at, since), func(ctx context.Context, h Store) error {
		got, err := h.Beat(ctx, replica, epoch.Add(at), epoch.Add(since))
		if err == nil && got != live {
			err = fmt.Errorf("live = %d, want %d", got, live)
		}
		return err
	}}
}

// leave is a step calling Leave.
func leave(on int, replica string) step {
	return step{on, fmt.Sprintf("Leave(%q)", replica), func(ctx context.Context, h Store) error {
		return h.Leave(ctx, replica)
	}}
}

func testReplicas(t *testing.T, s suite) {
	const (
		ms  = time.Millisecond
		sec = time.Second
	)
	runScripts(t, s, []script{
		{"alone counts itself", []step{
			beat(0, "a", 0, -30*sec, 1),
		}},
		{"counts the live ones by since", []step{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", 10*sec, -20*sec, 2),
			beat(0, "c", 40*sec, 10*sec, 2), // a's beat is older than since
		}},
		{"since is inclusive", []step{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", 10*sec, 0, 2),
			beat(1, "b", 10*sec, ms, 1),
		}},
		{"a beat again does not count twice", []step{
			beat(0, "a", 0, -30*sec, 1),
			beat(0, "a", 5*sec, -25*sec, 1),
			beat(1, "a", 6*sec, -24*sec, 1), // from the other handle too
			beat(1, "b", 7*sec, -23*sec, 2),
			beat(0, "a", 8*sec, -22*sec, 2),
		}},
		{"a beat again brings it back", []step{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", 60*sec, 30*sec, 1), // a went quiet
			beat(0, "a", 61*sec, 31*sec, 2),
		}},
		{"leave drops it", []step{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", sec, -29*sec, 2),
			leave(0, "a"),
			beat(1, "b", 2*sec, -28*sec, 1),
		}},
		{"leave then beat again", []step{
			beat(0, "a", 0, -30*sec, 1),
			leave(1, "a"),
			leave(1, "a"), // twice, or never seen: harmless
			leave(1, "nobody"),
			beat(0, "a", sec, -29*sec, 1),
			beat(1, "b", 2*sec, -28*sec, 2),
		}},
	})
}
