package slacktest_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

// members pages through conversations.members with the real client.
func members(t *testing.T, api *slack.Client, channel string, limit int) ([]string, int, error) {
	t.Helper()
	var all []string
	cursor, pages := "", 0
	for {
		ids, next, err := api.GetUsersInConversationContext(t.Context(), &slack.GetUsersInConversationParameters{
			ChannelID: channel, Cursor: cursor, Limit: limit,
		})
		if err != nil {
			return all, pages, err
		}
		pages++
		if limit > 0 && len(ids) > limit {
			t.Errorf("page of %d, limit %d", len(ids), limit)
		}
		all = append(all, ids...)
		if next == "" {
			return all, pages, nil
		}
		cursor = next
	}
}

func TestConversationsMembers(t *testing.T) {
	srv, api := newServer(t)
	bot := srv.BotUserID()
	srv.PostUserMessage(channel, alice, "hi", "")
	srv.PostUserMessage(dm, alice, "hi", "")

	// Who acts in a channel is in it, with the bot; nobody else is.
	got, _, err := members(t, api, channel, 0)
	if want := sorted(alice, bot); err != nil || !slices.Equal(got, want) {
		t.Fatalf("members of %s = %v, %v; want %v", channel, got, err, want)
	}
	if got, _, err := members(t, api, dm, 0); err != nil || !slices.Equal(got, sorted(alice, bot)) {
		t.Errorf("members of the DM = %v, %v", got, err)
	}
	srv.Join(channel, bob)
	srv.Leave(channel, alice)
	if got, _, err := members(t, api, channel, 0); err != nil || !slices.Equal(got, sorted(bob, bot)) {
		t.Errorf("after bob joined and alice left: %v, %v", got, err)
	}
	if got := srv.Members(channel); !slices.Equal(got, sorted(bob, bot)) {
		t.Errorf("Members = %v", got)
	}

	// Pages honour limit and together list everyone once.
	var crowd []string
	for i := range 23 {
		crowd = append(crowd, fmt.Sprintf("U2%04d", i))
	}
	srv.Join("C0000BIG", crowd...)
	want := sorted(append([]string{bot}, crowd...)...)
	for _, tc := range []struct{ limit, pages int }{{5, 5}, {24, 1}, {0, 1}, {1000, 1}, {1, 24}} {
		got, pages, err := members(t, api, "C0000BIG", tc.limit)
		if err != nil || !slices.Equal(got, want) || pages != tc.pages {
			t.Errorf("limit %d: %d pages, %v, %v; want %d pages of %v", tc.limit, pages, got, err, tc.pages, want)
		}
	}

	// Errors as Slack gives them.
	srv.AddChannel("G0000SEC", "secret", slacktest.Private)
	srv.Leave("G0000SEC", bot)
	for _, tc := range []struct{ channel, cursor, limit, err string }{
		{"C0000NONE", "", "", "channel_not_found"},
		{"G0000SEC", "", "", "channel_not_found"},
		{channel, "not base64!", "", "invalid_cursor"},
		{channel, "", "ten", "invalid_limit"},
	} {
		form := url.Values{"token": {srv.BotToken()}, "channel": {tc.channel}}
		if tc.cursor != "" {
			form.Set("cursor", tc.cursor)
		}
		if tc.limit != "" {
			form.Set("limit", tc.limit)
		}
		resp, err := http.PostForm(srv.URL+"/conversations.members", form)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !strings.Contains(string(body), `"error":"`+tc.err+`"`) {
			t.Errorf("%v: %s, %v; want %s", tc, body, err, tc.err)
		}
	}

	// Tier 4 and faults, as for every method.
	srv.FailNext("conversations.members", 1, slacktest.FaultRateLimited)
	_, _, err = api.GetUsersInConversationContext(t.Context(), &slack.GetUsersInConversationParameters{ChannelID: channel})
	if _, ok := errors.AsType[*slack.RateLimitedError](err); !ok {
		t.Errorf("after FailNext: %v, want a rate limit", err)
	}
}

func sorted(ids ...string) []string {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}
