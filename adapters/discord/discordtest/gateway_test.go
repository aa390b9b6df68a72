package discordtest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/coder/websocket"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

func TestReadyFillsStateAndGuilds(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s, rec := connect(t, srv)

	if s.State.User == nil || s.State.User.ID != srv.BotID() || !s.State.User.Bot {
		t.Fatalf("State.User = %+v, want the bot %s", s.State.User, srv.BotID())
	}
	if got := srv.Intents(); got != int(intents) {
		t.Errorf("Intents() = %d, want %d", got, intents)
	}
	if err := srv.WaitFor(ctx, srv.Connected); err != nil {
		t.Fatal(err)
	}
	// GUILD_CREATE follows READY and fills the state's channels, before
	// discordgo calls the handlers (the fake sees nothing of the client's
	// state: WaitFor cannot wait for it).
	rec.wait(t, ctx, "GUILD_CREATE", func() bool { return len(rec.guilds) > 0 })
	if _, err := s.State.Channel(general); err != nil {
		t.Fatalf("general never reached State: %v", err)
	}
	if n := srv.Identifies(); n != 1 {
		t.Errorf("Identifies() = %d, want 1", n)
	}
}

func TestPostDispatchesMessageCreate(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	dm := srv.DMChannel(alice)
	_, rec := connect(t, srv)

	tests := []struct {
		name      string
		in        discordtest.Incoming
		wantGuild string
		content   string
		mentions  bool
	}{
		{"mention in guild", discordtest.Incoming{Channel: general, Author: alice, Content: "hi", Mention: true},
			guild, "<@" + srv.BotID() + "> hi", true},
		{"plain guild message", discordtest.Incoming{Channel: general, Author: bob, Content: "chatter"}, guild, "chatter", false},
		{"direct message", discordtest.Incoming{Channel: dm, Author: alice, Content: "private"}, "", "private", false},
	}
	for _, tt := range tests {
		id := srv.Post(tt.in)
		m := rec.message(t, ctx, id)
		if m.GuildID != tt.wantGuild || m.Content != tt.content || m.Author.ID != tt.in.Author || m.ChannelID != tt.in.Channel {
			t.Errorf("%s: got guild %q content %q author %q channel %q", tt.name, m.GuildID, m.Content, m.Author.ID, m.ChannelID)
		}
		if (m.Member != nil) != (tt.wantGuild != "") {
			t.Errorf("%s: member = %v, want one only in guilds", tt.name, m.Member)
		}
		mentioned := len(m.Mentions) == 1 && m.Mentions[0].ID == srv.BotID()
		if mentioned != tt.mentions {
			t.Errorf("%s: mentions = %v, want bot mentioned %v", tt.name, m.Mentions, tt.mentions)
		}
	}
}

func TestMessageContentIntentGatesContent(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s := newSession(t, srv, srv.Token())
	s.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages
	got := make(chan *discordgo.MessageCreate, 4)
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { got <- m })
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	for _, tt := range []struct {
		in   discordtest.Incoming
		want string
	}{
		{discordtest.Incoming{Channel: general, Author: alice, Content: "secret"}, ""},
		{discordtest.Incoming{Channel: general, Author: alice, Content: "hey", Mention: true}, "<@" + srv.BotID() + "> hey"},
	} {
		srv.Post(tt.in)
		select {
		case m := <-got:
			if m.Content != tt.want {
				t.Errorf("content = %q, want %q", m.Content, tt.want)
			}
		case <-ctx.Done():
			t.Fatal("no MESSAGE_CREATE")
		}
	}
}

func TestDropConnectionResumesAndReplaysOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	_, rec := connect(t, srv)
	first := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "before"})
	rec.message(t, ctx, first)

	srv.DropConnection()
	away1 := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "while away 1"})
	away2 := srv.Post(discordtest.Incoming{Channel: general, Author: bob, Content: "while away 2"})
	if err := srv.WaitFor(ctx, func() bool { return srv.Resumes() == 1 && srv.Connected() }); err != nil {
		t.Fatalf("no resume: %v", err)
	}
	rec.message(t, ctx, away1)
	rec.message(t, ctx, away2)
	// Dispatches of one session arrive in order: once this one is in, any
	// duplicate of the earlier ones would be too.
	after := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "after"})
	rec.message(t, ctx, after)
	for _, id := range []string{first, away1, away2, after} {
		if n := rec.count(id); n != 1 {
			t.Errorf("message %s delivered %d times, want once", id, n)
		}
	}
	if n := srv.Identifies(); n != 1 {
		t.Errorf("Identifies() = %d, want 1 (resumed, not re-identified)", n)
	}
}

func TestRequestReconnectResumes(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	_, rec := connect(t, srv)

	srv.RequestReconnect()
	if err := srv.WaitFor(ctx, func() bool { return srv.Resumes() == 1 && srv.Connected() }); err != nil {
		t.Fatalf("no resume after op 7: %v", err)
	}
	id := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "still here"})
	rec.message(t, ctx, id)
}

func TestInvalidateSessionReidentifies(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	_, rec := connect(t, srv)

	srv.InvalidateSession()
	held := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "held for the new session"})
	if err := srv.WaitFor(ctx, func() bool { return srv.Identifies() == 2 && srv.Connected() }); err != nil {
		t.Fatalf("no fresh IDENTIFY after op 9: %v", err)
	}
	rec.message(t, ctx, held)
	if n := srv.Resumes(); n != 0 {
		t.Errorf("Resumes() = %d, want 0", n)
	}
}

func TestWrongTokenIsRefused(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, "not-the-token")

	err := s.Open()
	if err == nil {
		_ = s.Close()
		t.Fatal("Open with a wrong token succeeded")
	}
	if !strings.Contains(err.Error(), "4004") {
		t.Errorf("Open error = %v, want close 4004", err)
	}
	_, err = s.User("@me")
	restErr(t, err, 401, 0)
}

func TestMalformedFrameCloses4002(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/gateway?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, hello, err := ws.Read(ctx); err != nil || !strings.Contains(string(hello), `"op":10`) {
		t.Fatalf("hello = %s, %v", hello, err)
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.Read(ctx)
	if code := websocket.CloseStatus(err); code != 4002 {
		t.Fatalf("close status = %d (%v), want 4002", code, err)
	}
}

func TestHeartbeatsAreAcked(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t, discordtest.WithHeartbeatInterval(250*time.Millisecond))
	connect(t, srv)
	// discordgo reconnects when ACKs stop; a few beats without a reconnect
	// show they are answered.
	if err := srv.WaitFor(ctx, func() bool { return srv.Heartbeats() >= 3 }); err != nil {
		t.Fatal(err)
	}
	if srv.Identifies() != 1 || srv.Resumes() != 0 {
		t.Errorf("identifies %d resumes %d, want 1/0", srv.Identifies(), srv.Resumes())
	}
}

func TestCloseUnblocksWaitFor(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := discordtest.NewServer()
	done := make(chan error, 1)
	go func() { done <- srv.WaitFor(ctx, func() bool { return false }) }()
	srv.Close()
	select {
	case err := <-done:
		if !errors.Is(err, discordtest.ErrClosed) {
			t.Fatalf("WaitFor after Close = %v, want ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("WaitFor still blocked after Close")
	}
}
