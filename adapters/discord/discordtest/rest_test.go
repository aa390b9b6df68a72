package discordtest_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

func TestThreadStartAndSendInThread(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s, rec := connect(t, srv)
	root := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "help", Mention: true})

	th, err := s.MessageThreadStart(general, root, "help", 1440)
	if err != nil {
		t.Fatal(err)
	}
	if th.ID != root || th.Type != discordgo.ChannelTypeGuildPublicThread || th.ParentID != general || th.GuildID != guild {
		t.Fatalf("thread = %+v", th)
	}
	rec.wait(t, ctx, "THREAD_CREATE", func() bool { return len(rec.threads) == 1 && rec.threads[0].ID == root })
	m, err := s.ChannelMessageSendComplex(th.ID, &discordgo.MessageSend{Content: "on it", AllowedMentions: &discordgo.MessageAllowedMentions{}})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.BotMessages(th.ID)
	if len(got) != 1 || got[0].ID != m.ID || got[0].Content != "on it" || got[0].GuildID != guild {
		t.Fatalf("BotMessages(thread) = %+v", got)
	}
	if c, ok := srv.ThreadOf(root); !ok || c.ParentID != general {
		t.Errorf("ThreadOf(root) = %+v, %v", c, ok)
	}

	_, err = s.MessageThreadStart(general, root, "again", 1440)
	restErr(t, err, 400, 160004)
	second := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "x"})
	_, err = s.MessageThreadStart(general, second, strings.Repeat("n", 101), 1440)
	restErr(t, err, 400, 50035)
	srv.ForbidThreads(general)
	_, err = s.MessageThreadStart(general, second, "no", 1440)
	restErr(t, err, 403, 50013)
}

func TestDMChannel(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, srv.Token())

	ch, err := s.UserChannelCreate(alice)
	if err != nil {
		t.Fatal(err)
	}
	if ch.ID != srv.DMChannel(alice) || ch.Type != discordgo.ChannelTypeDM || len(ch.Recipients) != 1 || ch.Recipients[0].ID != alice {
		t.Fatalf("DM channel = %+v, want %s", ch, srv.DMChannel(alice))
	}
	if _, err := s.ChannelMessageSend(ch.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := srv.BotMessages(ch.ID); len(got) != 1 || got[0].GuildID != "" {
		t.Fatalf("BotMessages(DM) = %+v", got)
	}
	_, err = s.UserChannelCreate("299999999999999999")
	restErr(t, err, 404, 10013)
}

func TestAllowedMentionsPings(t *testing.T) {
	t.Parallel()
	srv := newServer(t, discordtest.WithoutRateLimits()) // not about pacing
	s := newSession(t, srv, srv.Token())
	asked := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "question"})
	content := "@everyone <@" + bob + "> <@&300000000000000001> @here"
	reply := &discordgo.MessageReference{MessageID: asked, ChannelID: general}

	tests := []struct {
		name string
		send discordgo.MessageSend
		want []string
	}{
		{"absent parses everything and pings the replied author",
			discordgo.MessageSend{Content: content, Reference: reply},
			[]string{"everyone", "user:" + bob, "role:300000000000000001", "here", "user:" + alice}},
		{"empty parse pings nobody",
			discordgo.MessageSend{Content: content, Reference: reply, AllowedMentions: &discordgo.MessageAllowedMentions{}}, nil},
		{"users list pings only them",
			discordgo.MessageSend{Content: content, AllowedMentions: &discordgo.MessageAllowedMentions{Users: []string{bob}}},
			[]string{"user:" + bob}},
		{"parse users, not everyone",
			discordgo.MessageSend{Content: content, AllowedMentions: &discordgo.MessageAllowedMentions{
				Parse: []discordgo.AllowedMentionType{discordgo.AllowedMentionTypeUsers}}},
			[]string{"user:" + bob}},
		{"replied_user only",
			discordgo.MessageSend{Content: content, Reference: reply, AllowedMentions: &discordgo.MessageAllowedMentions{RepliedUser: true}},
			[]string{"user:" + alice}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := s.ChannelMessageSendComplex(general, &tt.send)
			if err != nil {
				t.Fatal(err)
			}
			var got discordtest.Message
			for _, bm := range srv.BotMessages(general) {
				if bm.ID == m.ID {
					got = bm
				}
			}
			if diff := cmp.Diff(tt.want, got.Pings); diff != "" {
				t.Errorf("Pings (-want +got):\n%s", diff)
			}
			var users []string
			for _, p := range tt.want {
				if id, ok := strings.CutPrefix(p, "user:"); ok {
					users = append(users, id)
				}
			}
			if diff := cmp.Diff(users, got.PingedUsers()); diff != "" {
				t.Errorf("PingedUsers (-want +got):\n%s", diff)
			}
			// What the fake recorded is what discordgo sent.
			var sent *discordtest.AllowedMentions
			if b, _ := json.Marshal(tt.send.AllowedMentions); json.Unmarshal(b, &sent) != nil {
				t.Fatalf("allowed_mentions %s", b)
			}
			if diff := cmp.Diff(sent, got.AllowedMentions); diff != "" {
				t.Errorf("AllowedMentions (-sent +recorded):\n%s", diff)
			}
		})
	}

	// An edit without allowed_mentions re-parses with the defaults.
	m, err := s.ChannelMessageSendComplex(general, &discordgo.MessageSend{Content: "draft", AllowedMentions: &discordgo.MessageAllowedMentions{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChannelMessageEdit(general, m.ID, "final @everyone"); err != nil {
		t.Fatal(err)
	}
	msgs := srv.BotMessages(general)
	if last := msgs[len(msgs)-1]; last.Edits != 1 || !cmp.Equal(last.Pings, []string{"everyone"}) {
		t.Errorf("edited message = %+v, want 1 edit pinging everyone", last)
	}
}

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t, discordtest.WithoutRateLimits()) // not about pacing
	s := newSession(t, srv, srv.Token())
	userMsg := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "mine"})
	button := func(id, label string) discordgo.MessageComponent {
		return discordgo.Button{Label: label, Style: discordgo.PrimaryButton, CustomID: id}
	}
	sixButtons := discordgo.ActionsRow{}
	for i := range 6 {
		sixButtons.Components = append(sixButtons.Components, button("b"+string(rune('a'+i)), "x"))
	}

	tests := []struct {
		name         string
		call         func() error
		status, code int
	}{
		{"content over 2000", func() error {
			_, err := s.ChannelMessageSend(general, strings.Repeat("a", 2001))
			return err
		}, 400, 50035},
		{"empty message", func() error {
			_, err := s.ChannelMessageSendComplex(general, &discordgo.MessageSend{})
			return err
		}, 400, 50006},
		{"custom_id over 100", func() error {
			_, err := s.ChannelMessageSendComplex(general, &discordgo.MessageSend{Content: "x", Components: []discordgo.MessageComponent{
				discordgo.ActionsRow{Components: []discordgo.MessageComponent{button(strings.Repeat("c", 101), "x")}}}})
			return err
		}, 400, 50035},
		{"label over 80", func() error {
			_, err := s.ChannelMessageSendComplex(general, &discordgo.MessageSend{Content: "x", Components: []discordgo.MessageComponent{
				discordgo.ActionsRow{Components: []discordgo.MessageComponent{button("ok", strings.Repeat("l", 81))}}}})
			return err
		}, 400, 50035},
		{"six buttons in a row", func() error {
			_, err := s.ChannelMessageSendComplex(general, &discordgo.MessageSend{Content: "x", Components: []discordgo.MessageComponent{sixButtons}})
			return err
		}, 400, 50035},
		{"unknown channel", func() error {
			_, err := s.ChannelMessageSend("199999999999999999", "x")
			return err
		}, 404, 10003},
		{"unknown message", func() error {
			_, err := s.ChannelMessageEdit(general, "199999999999999999", "x")
			return err
		}, 404, 10008},
		{"someone else's message", func() error {
			_, err := s.ChannelMessageEdit(general, userMsg, "x")
			return err
		}, 403, 50005},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { restErr(t, tt.call(), tt.status, tt.code) })
	}
	if _, err := s.ChannelMessageSend(general, strings.Repeat("é", 2000)); err != nil {
		t.Errorf("2000 two-byte characters: %v, want accepted (runes are counted)", err)
	}
	if got := len(srv.BotMessages(general)); got != 1 {
		t.Errorf("%d bot messages stored, want only the valid one", got)
	}
}

func TestInjectedRateLimitSurfacesAsRateLimitError(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, srv.Token())

	srv.RateLimitNext("POST /channels/{id}/messages", 1500*time.Millisecond)
	_, err := s.ChannelMessageSend(general, "x", discordgo.WithRetryOnRatelimit(false))
	var rl *discordgo.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("error = %v, want *discordgo.RateLimitError", err)
	}
	if rl.RetryAfter != 1500*time.Millisecond {
		t.Errorf("RetryAfter = %v, want 1.5s", rl.RetryAfter)
	}
	if n := len(srv.BotMessages(general)); n != 0 || srv.RateLimited() != 0 {
		t.Errorf("messages %d, RateLimited %d: a 429 has no effect and injected ones are not counted", n, srv.RateLimited())
	}

	// By default discordgo sleeps and retries by itself.
	srv.RateLimitNext("POST /channels/{channel}/messages", 100*time.Millisecond)
	other := newSession(t, srv, srv.Token())
	if _, err := other.ChannelMessageSend(general, "retried"); err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for _, c := range srv.Calls() {
		if c.Method == http.MethodPost && c.Path == "/channels/"+general+"/messages" {
			statuses = append(statuses, c.Status)
		}
	}
	if !cmp.Equal(statuses, []int{429, 429, 200}) {
		t.Errorf("statuses = %v, want [429 429 200]", statuses)
	}
}

func TestBucketHeadersMakeDiscordgoWait(t *testing.T) {
	t.Parallel()
	srv := newServer(t, discordtest.WithLimit("POST /channels/{id}/messages", discordtest.Limit{Requests: 2, Window: 300 * time.Millisecond}))
	s := newSession(t, srv, srv.Token())
	start := time.Now()
	for i := range 3 {
		if _, err := s.ChannelMessageSend(general, "n", discordgo.WithRetryOnRatelimit(false)); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	// Remaining 0 + Reset-After made discordgo hold the third send until the
	// window reset; without that wait the fake would have answered 429.
	if n := srv.RateLimited(); n != 0 {
		t.Errorf("RateLimited() = %d, want 0", n)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("three sends took %v, want at least one window", waited)
	}
}

// TestRateLimitWire checks Discord's 429 shape on the wire, for a bucket and
// for the global limit, with a client that ignores the headers.
func TestRateLimitWire(t *testing.T) {
	t.Parallel()
	srv := newServer(t,
		discordtest.WithLimit("POST /channels/{id}/messages", discordtest.Limit{Requests: 2, Window: time.Minute}),
		discordtest.WithGlobalLimit(discordtest.Limit{Requests: 4, Window: time.Minute}))
	do := func(method, path, body string) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.APIURL()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bot "+srv.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return resp, out
	}
	post := func() (*http.Response, map[string]any) {
		return do(http.MethodPost, "/channels/"+general+"/messages", `{"content":"x"}`)
	}

	for i, wantRemaining := range []string{"1", "0"} {
		resp, _ := post()
		if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != wantRemaining ||
			resp.Header.Get("X-RateLimit-Limit") != "2" || resp.Header.Get("X-RateLimit-Bucket") == "" {
			t.Fatalf("post %d: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	resp, body := post()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "60" || resp.Header.Get("X-RateLimit-Scope") != "user" ||
		body["message"] != "You are being rate limited." || body["global"] != false || body["retry_after"].(float64) <= 59 {
		t.Fatalf("bucket 429 = %d %v %v", resp.StatusCode, resp.Header, body)
	}
	if n := len(srv.BotMessages(general)); n != 2 || srv.RateLimited() != 1 {
		t.Fatalf("messages %d, RateLimited %d; want 2 and 1", n, srv.RateLimited())
	}
	if resp, _ := do(http.MethodGet, "/users/@me", ""); resp.StatusCode != 200 {
		t.Fatalf("4th call: %d", resp.StatusCode)
	}
	resp, body = do(http.MethodGet, "/users/@me", "")
	if resp.StatusCode != 429 || resp.Header.Get("X-RateLimit-Global") != "true" || resp.Header.Get("X-RateLimit-Scope") != "global" || body["global"] != true {
		t.Fatalf("global 429 = %d %v %v", resp.StatusCode, resp.Header, body)
	}

	for _, tt := range []struct {
		method, path, auth string
		status             int
	}{
		{http.MethodGet, "/nope", "Bot " + srv.Token(), 404},
		{http.MethodPut, "/users/@me", "Bot " + srv.Token(), 405},
		{http.MethodGet, "/users/@me", "Bot wrong", 401},
		{http.MethodGet, "/users/@me", srv.Token(), 401},
	} {
		req, _ := http.NewRequest(tt.method, srv.APIURL()+tt.path, nil)
		req.Header.Set("Authorization", tt.auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s (%q) = %d, want %d", tt.method, tt.path, tt.auth, resp.StatusCode, tt.status)
		}
	}
}

func TestFailNextAndStorm(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, srv.Token())
	srv.FailNext("PATCH /channels/{id}/messages/{id}", discordtest.Fault{Status: 500})
	m, err := s.ChannelMessageSend(general, "x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ChannelMessageEdit(general, m.ID, "y")
	restErr(t, err, 500, 0)
	if _, err := s.ChannelMessageEdit(general, m.ID, "y"); err != nil {
		t.Fatalf("second edit: %v", err)
	}

	srv.Storm(1, time.Second, "POST /channels/{id}/typing")
	err = s.ChannelTyping(general, discordgo.WithRetryOnRatelimit(false))
	var rl *discordgo.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("typing in a storm: %v, want RateLimitError", err)
	}
	srv.Storm(0, 0, "POST /channels/{id}/typing")
	other := newSession(t, srv, srv.Token()) // its bucket knows nothing of the storm
	if err := other.ChannelTyping(general); err != nil || srv.Typing(general) != 1 {
		t.Fatalf("typing after the storm: %v, count %d", err, srv.Typing(general))
	}
}

func TestChannelMessagesPages(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, srv.Token())
	var ids []string
	for _, text := range []string{"1", "2", "3", "4"} {
		ids = append(ids, srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: text}))
	}
	got, err := s.ChannelMessages(general, 2, "", ids[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[1] {
		t.Fatalf("after first, limit 2 = %v, want [%s %s] (newest first)", got, ids[2], ids[1])
	}
	got, err = s.ChannelMessages(general, 0, ids[3], "", "")
	if err != nil || len(got) != 3 || got[0].ID != ids[2] {
		t.Fatalf("before last = %v, %v", got, err)
	}
	_, err = s.ChannelMessages(general, 101, "", "", "")
	restErr(t, err, 400, 50035)
}
