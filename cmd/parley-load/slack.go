package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

const platformSlack = "slack"

// slack is slacktest with one DM (IM channel "D"+user id) per person. A DM
// is one continuing conversation, so people post at its top level and
// Parley answers there, by a native stream or by a post and its edits.
type slack struct {
	srv   *slacktest.Server
	users []string
	chans []string
}

func newSlack(users int, limits bool) *slack {
	var opts []slacktest.Option
	if !limits {
		opts = append(opts, slacktest.WithoutRateLimits())
	}
	s := &slack{srv: slacktest.NewServer(opts...)}
	for i := range users {
		// Slack ids are upper-case; the prefix keeps them clear of the
		// fake's bot user.
		id := fmt.Sprintf("ULOAD%06d", i)
		ch := "D" + id
		s.srv.AddUser(id, fmt.Sprintf("person%d", i))
		s.srv.AddChannel(ch, ch, slacktest.IM)
		s.users = append(s.users, id)
		s.chans = append(s.chans, ch)
	}
	return s
}

// env uses Socket Mode, Parley's default; Slack lets the whole workspace
// in unless an allow list says otherwise.
func (s *slack) env() map[string]string {
	return map[string]string{
		"PARLEY_SLACK_ENABLED":   "true",
		"PARLEY_SLACK_BOT_TOKEN": s.srv.BotToken(),
		"PARLEY_SLACK_APP_TOKEN": s.srv.AppToken(),
		// slack-go appends the method name to the base, slash included.
		"PARLEY_SLACK_API_URL": s.srv.URL + "/",
	}
}

// ready waits for a Socket Mode connection: events reach Parley from then
// on (the fake would queue them before, but a Parley that never connects
// should fail here, not as lost answers).
func (s *slack) ready(ctx context.Context) error {
	return s.srv.WaitFor(ctx, s.srv.Connected)
}

func (s *slack) post(person int, text string) {
	s.srv.PostUserMessage(s.chans[person], s.users[person], text, "")
}

// streamingMark flags a natively streamed message that was never stopped:
// its text may already read as the whole answer, but the person still
// sees it being written, so it is neither a finished answer nor one to
// let pass in the tally.
const streamingMark = " [still streaming]"

// botTexts are the app's messages in the DM, thread replies included.
func (s *slack) botTexts(person int) []string {
	var out []string
	for _, m := range s.srv.Messages(s.chans[person]) {
		if m.BotID != s.srv.BotID() {
			continue
		}
		t := m.Visible()
		if m.Streaming {
			t += streamingMark
		}
		out = append(out, t)
	}
	return out
}

func (s *slack) waitFor(ctx context.Context, cond func() bool) error {
	return s.srv.WaitFor(ctx, cond)
}

// rateLimited counts the 429s in the call log: the fake keeps no separate
// count, and with no faults injected every 429 is its limits'.
func (s *slack) rateLimited() int {
	n := 0
	for _, c := range s.srv.Calls() {
		if c.Status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

func (s *slack) calls() int { return len(s.srv.Calls()) }
func (s *slack) Close()     { s.srv.Close() }
