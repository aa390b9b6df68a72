package slacktest_test

import (
	"testing"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

// TestCallObserver: the observer hears of each Web API call as it is
// recorded, with what Calls will show.
func TestCallObserver(t *testing.T) {
	var heard []slacktest.Call
	srv, api := newServer(t, slacktest.WithCallObserver(func(c slacktest.Call) { heard = append(heard, c) }))
	if _, _, err := api.PostMessageContext(testCtx(t), channel, slack.MsgOptionText("hi", false)); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(heard) != len(calls) || len(heard) == 0 || heard[len(heard)-1].Method != "chat.postMessage" ||
		heard[len(heard)-1].Params.Get("channel") != channel {
		t.Fatalf("heard %+v, calls %+v", heard, calls)
	}
}
