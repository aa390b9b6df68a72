package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// slackCall makes a Web API call on the fake as Parley's app would, and
// returns the ts of the message it names.
func slackCall(t *testing.T, s *slack, method string, params url.Values) string {
	t.Helper()
	params.Set("token", s.srv.BotToken())
	resp, err := http.PostForm(s.srv.URL+"/"+method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var body struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
		TS    string `json:"ts"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: HTTP %d, %v", method, resp.StatusCode, err)
	}
	if !body.OK {
		t.Fatalf("%s: HTTP %d, error %q", method, resp.StatusCode, body.Error)
	}
	return body.TS
}

// TestSlackBotTexts: what a person reads of the app in their DM, as the
// load and the tally see it, for each way Parley can answer there.
func TestSlackBotTexts(t *testing.T) {
	want := script{}.answer(token(0, 0))
	tests := []struct {
		name string
		// answer makes the app (or others) act in person 0's DM, whose
		// question has ts q.
		answer         func(t *testing.T, s *slack, q string)
		wantTexts      []string
		wantUnexpected int
	}{
		{"nothing yet", func(*testing.T, *slack, string) {}, nil, 0},
		{"post then edit", func(t *testing.T, s *slack, _ string) {
			ts := slackCall(t, s, "chat.postMessage", url.Values{"channel": {s.chans[0]}, "text": {"…"}})
			slackCall(t, s, "chat.update", url.Values{"channel": {s.chans[0]}, "ts": {ts}, "text": {want}})
		}, []string{want}, 0},
		{"native stream, stopped", func(t *testing.T, s *slack, q string) {
			ts := slackCall(t, s, "chat.startStream", url.Values{"channel": {s.chans[0]}, "thread_ts": {q}, "markdown_text": {"Answer to "}})
			slackCall(t, s, "chat.appendStream", url.Values{"channel": {s.chans[0]}, "ts": {ts}, "markdown_text": {token(0, 0) + ", all good."}})
			slackCall(t, s, "chat.stopStream", url.Values{"channel": {s.chans[0]}, "ts": {ts}})
		}, []string{want}, 0},
		// The whole text is there, but the person still sees it written.
		{"native stream, never stopped", func(t *testing.T, s *slack, q string) {
			slackCall(t, s, "chat.startStream", url.Values{"channel": {s.chans[0]}, "thread_ts": {q}, "markdown_text": {want}})
		}, []string{want + streamingMark}, 1},
		{"another bot's message is not the app's", func(_ *testing.T, s *slack, _ string) {
			s.srv.PostBotMessage(s.chans[0], "BOTHER", "other", want, "")
		}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSlack(2, false, 1)
			defer s.Close()
			q := s.srv.PostUserMessage(s.chans[0], s.users[0], question(0, 0), "")
			tt.answer(t, s, q)
			if got := s.botTexts(0); !slices.Equal(got, tt.wantTexts) {
				t.Fatalf("botTexts(0) = %q, want %q", got, tt.wantTexts)
			}
			if got := s.botTexts(1); len(got) != 0 {
				t.Fatalf("person 1's DM shows %q, want nothing", got)
			}
			_, unexpected, _ := tally(s, script{}, []personResult{{sent: 1}, {}})
			if unexpected != tt.wantUnexpected {
				t.Fatalf("tally: %d unexpected, want %d", unexpected, tt.wantUnexpected)
			}
		})
	}
}

func TestSlackCountsRateLimited(t *testing.T) {
	s := newSlack(1, false, 1)
	defer s.Close()
	s.srv.FailNextRateLimited("chat.update", 2, time.Second)
	for range 3 {
		resp, err := http.PostForm(s.srv.URL+"/chat.update", url.Values{"token": {s.srv.BotToken()}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got, calls := s.rateLimited(), s.calls(); got != 2 || calls != 3 {
		t.Fatalf("rateLimited() = %d of %d calls, want 2 of 3", got, calls)
	}
}

// TestSlackLimits: -limits turns the fake's real rate limits on; off by
// default, a burst far past any tier goes through.
func TestSlackLimits(t *testing.T) {
	for _, limits := range []bool{false, true} {
		s := newSlack(1, limits, 1)
		for range 30 { // chat.startStream is Tier 2: 20 a minute
			resp, err := http.PostForm(s.srv.URL+"/chat.startStream", url.Values{
				"token": {s.srv.BotToken()}, "channel": {s.chans[0]}, "thread_ts": {"1.0"}, "markdown_text": {"x"},
			})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if got := s.rateLimited(); (got > 0) != limits {
			t.Errorf("limits %v: %d calls answered 429", limits, got)
		}
		s.Close()
	}
}
