package discordtest_test

import (
	"testing"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

// TestCallObserver: the observer hears of each REST call as it is
// recorded, with what Calls will show.
func TestCallObserver(t *testing.T) {
	var heard []discordtest.Call
	srv := newServer(t, discordtest.WithCallObserver(func(c discordtest.Call) { heard = append(heard, c) }))
	s := newSession(t, srv, srv.Token())
	if _, err := s.ChannelMessageSend(general, "hello"); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(heard) != len(calls) || len(heard) == 0 || heard[len(heard)-1] != calls[len(calls)-1] ||
		heard[len(heard)-1].Path != "/channels/"+general+"/messages" {
		t.Fatalf("heard %+v, calls %+v", heard, calls)
	}
}
