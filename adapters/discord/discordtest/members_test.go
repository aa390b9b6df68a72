package discordtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

// getRaw calls the fake's REST API with the bot token, returning the
// status, the body and the headers as the wire carries them.
func getRaw(t *testing.T, srv *discordtest.Server, path string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodGet, srv.APIURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+srv.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

func TestGuildMember(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, srv.Token())

	m, err := s.GuildMember(guild, alice)
	if err != nil {
		t.Fatal(err)
	}
	if m.User == nil || m.User.ID != alice || m.User.Username != "alice" || m.GuildID != guild || m.JoinedAt.IsZero() {
		t.Fatalf("member = %+v", m)
	}

	status, body, h := getRaw(t, srv, "/guilds/"+guild+"/members/"+alice)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &obj); status != http.StatusOK || err != nil {
		t.Fatalf("GET member: %d %s (%v)", status, body, err)
	}
	for _, k := range []string{"user", "nick", "avatar", "roles", "joined_at", "premium_since", "deaf", "mute", "flags", "pending", "communication_disabled_until"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("member object without %q: %s", k, body)
		}
	}
	if _, ok := obj["permissions"]; ok {
		t.Errorf("member object with permissions, which only interactions carry: %s", body)
	}
	if h.Get("X-RateLimit-Bucket") == "" {
		t.Errorf("no rate-limit headers: %v", h)
	}

	if !srv.IsMember(guild, bob) {
		t.Fatal("bob is no member by default")
	}
	srv.RemoveMember(guild, bob)
	if srv.IsMember(guild, bob) {
		t.Fatal("bob is still a member after RemoveMember")
	}
	_, err = s.GuildMember(guild, bob)
	restErr(t, err, http.StatusNotFound, discordgo.ErrCodeUnknownMember)
	if status, body, _ := getRaw(t, srv, "/guilds/"+guild+"/members/"+bob); status != http.StatusNotFound ||
		body != `{"message":"Unknown Member","code":10007}`+"\n" {
		t.Errorf("GET removed member: %d %q", status, body)
	}
	srv.AddMember(guild, bob)
	if m, err := s.GuildMember(guild, bob); err != nil || m.User.ID != bob {
		t.Errorf("after AddMember: %+v, %v", m, err)
	}

	_, err = s.GuildMember(guild, "200000000000000099")
	restErr(t, err, http.StatusNotFound, discordgo.ErrCodeUnknownUser)
	_, err = s.GuildMember("100000000000000099", alice)
	restErr(t, err, http.StatusNotFound, discordgo.ErrCodeUnknownGuild)
	_, err = s.GuildMember(guild, "alice")
	restErr(t, err, http.StatusBadRequest, discordgo.ErrCodeInvalidFormBody)
	if m, err := s.GuildMember(guild, srv.BotID()); err != nil || !m.User.Bot {
		t.Errorf("the bot as a member: %+v, %v", m, err)
	}
}

func TestGuildMemberRateLimited(t *testing.T) {
	t.Parallel()
	srv := newServer(t, discordtest.WithLimit("GET /guilds/{guild}/members/{user}", discordtest.Limit{Requests: 1, Window: time.Minute}))
	s := newSession(t, srv, srv.Token())

	// The first call bypasses the session, which would otherwise wait out
	// the exhausted bucket itself instead of meeting the 429.
	if status, body, _ := getRaw(t, srv, "/guilds/"+guild+"/members/"+alice); status != http.StatusOK {
		t.Fatalf("first call: %d %s", status, body)
	}
	_, err := s.GuildMember(guild, bob, discordgo.WithRetryOnRatelimit(false))
	if _, ok := err.(*discordgo.RateLimitError); !ok {
		t.Fatalf("second call in the window: %v, want *discordgo.RateLimitError", err)
	}

	srv.RateLimitNext("GET /guilds/{id}/members/{id}", 2*time.Second)
	status, body, h := getRaw(t, srv, "/guilds/100000000000000003/members/"+alice) // another guild's bucket
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != "2" {
		t.Errorf("RateLimitNext: %d %s %v", status, body, h)
	}
}
