package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

const platformSlack = "slack"

// slack is slacktest with one DM (IM channel "D"+user id) per person. A DM
// is one continuing conversation, so people post at its top level and
// Parley answers there, by a native stream or by a post and its edits.
type slack struct {
	srv     *slacktest.Server
	users   []string
	chans   []string
	people  map[string]int // by DM channel; read-only once built
	changes *callLog
	// replicas is how many Parleys connect, each with its own Socket Mode
	// connection; the fake spreads events over them.
	replicas int
}

func newSlack(users int, limits bool, replicas int) *slack {
	s := &slack{people: map[string]int{}, changes: newCallLog(), replicas: max(replicas, 1)}
	opts := []slacktest.Option{slacktest.WithCallObserver(s.observe)}
	if !limits {
		opts = append(opts, slacktest.WithoutRateLimits())
	}
	s.srv = slacktest.NewServer(opts...)
	for i := range users {
		// Slack ids are upper-case; the prefix keeps them clear of the
		// fake's bot user.
		id := fmt.Sprintf("ULOAD%06d", i)
		ch := "D" + id
		s.srv.AddUser(id, fmt.Sprintf("person%d", i))
		s.srv.AddChannel(ch, ch, slacktest.IM)
		s.users = append(s.users, id)
		s.chans = append(s.chans, ch)
		s.people[ch] = i
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

// ready waits for every replica's Socket Mode connection: events reach
// Parley from then on (the fake would queue them before, but a Parley that
// never connects should fail here, not as lost answers).
func (s *slack) ready(ctx context.Context) error {
	return s.srv.WaitFor(ctx, func() bool { return s.srv.OpenConnections() >= s.replicas })
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

// observe tells the log about a chat.* call in a person's DM: a post,
// an update, a stream started, appended to or stopped. The people map is
// complete before Parley starts, so reading it here needs no lock.
func (s *slack) observe(c slacktest.Call) {
	// Slack refuses with a 200 and "ok": false.
	if c.Status != http.StatusOK || !bytes.Contains(c.Response, []byte(`"ok":true`)) ||
		!strings.HasPrefix(c.Method, "chat.") || c.Method == "chat.postEphemeral" {
		return
	}
	person, ok := s.people[c.Params.Get("channel")]
	if !ok {
		return
	}
	s.changes.note(person, true, c.Method == "chat.update" || c.Method == "chat.appendStream")
}

func (s *slack) log() *callLog { return s.changes }

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
