package bot

import (
	"testing"

	"github.com/parleybot/parley/chat"
)

// Only the running turn's author wakes its wait (docs/architecture.md,
// Who acts): anyone else's message waits for a turn of its own.
func TestWakeForOnlyTheAuthor(t *testing.T) {
	ana := chat.User{Platform: "slack", ID: "U1", Name: "ana"}
	bo := chat.User{Platform: "slack", ID: "U2", Name: "bo"}
	for _, tt := range []struct {
		name    string
		running bool
		from    chat.User
		want    bool
	}{
		{"the author, while the turn runs", true, ana, true},
		{"someone else", true, bo, false},
		{"the author, with no turn running", false, ana, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &sessionState{running: tt.running, author: ana.Key(), wake: make(chan struct{}, 1)}
			st.wakeFor(chat.Message{User: tt.from})
			st.wakeFor(chat.Message{User: tt.from}) // a second one never blocks
			select {
			case <-st.wake:
				if !tt.want {
					t.Fatal("woken")
				}
			default:
				if tt.want {
					t.Fatal("not woken")
				}
			}
		})
	}
}
