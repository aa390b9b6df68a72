package discord

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"

	"github.com/bwmarrin/discordgo"
)

// messageRecorder is a chat.Handler keeping the messages handed over.
type messageRecorder struct {
	mu   sync.Mutex
	msgs []chat.Message
}

func (r *messageRecorder) HandleMessage(_ context.Context, m chat.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}

func (r *messageRecorder) HandleAction(context.Context, chat.Action) error   { return nil }
func (r *messageRecorder) HandleCommand(context.Context, chat.Command) error { return nil }

// TestRecoverGap: the recovery asks each channel for what followed its
// newest seen message, hands it over oldest first with the guild that
// Discord's REST listing leaves out, waits out a 429, and skips a channel
// it may not read.
func TestRecoverGap(t *testing.T) {
	f := newFakeREST(t)
	log := &syncbuf.Buffer{}
	a := newTestAdapter(t, f, log)
	const (
		dm     = "400"
		hidden = "500" // a channel the bot may no longer read
		alice  = `{"id":"301","username":"alice"}`
	)
	for _, m := range []*discordgo.Message{
		{ID: "1000", ChannelID: testChan, GuildID: testGuild},
		{ID: "990", ChannelID: testChan, GuildID: testGuild}, // handled late: not the newest
		{ID: "1005", ChannelID: dm},
		{ID: "1006", ChannelID: hidden, GuildID: testGuild},
	} {
		a.noteSeen(m)
	}
	// Newest first, without guild_id, as Discord lists them.
	f.answer("GET /channels/"+testChan+"/messages", 200, `[
		{"id":"1003","channel_id":"200","type":0,"content":"third","author":`+alice+`},
		{"id":"1002","channel_id":"200","type":0,"content":"second","author":`+alice+`}]`)
	f.rateLimitOnce("GET /channels/"+dm+"/messages", "0.01")
	f.answer("GET /channels/"+dm+"/messages", 200, `[{"id":"1007","channel_id":"400","type":0,"content":"in the DM","author":`+alice+`}]`)
	f.answer("GET /channels/"+hidden+"/messages", 403, `{"message":"Missing Access","code":50001}`)

	h := &messageRecorder{}
	a.recoverGap(testCtx(t), h, a.active.Newest(backfillChannels))

	var got []string
	for _, m := range h.msgs {
		got = append(got, m.Text+"@"+m.Thread.Space+"/"+m.Thread.Chat)
	}
	// Channels newest first (the hidden one, the DM, then testChan);
	// messages oldest first within each.
	want := []string{"in the DM@/" + dm, "second@" + testGuild + "/" + testChan, "third@" + testGuild + "/" + testChan}
	if !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}

	reads := map[string][]string{}
	for _, c := range f.recorded() {
		ch := strings.TrimSuffix(strings.TrimPrefix(c.Path, "/channels/"), "/messages")
		reads[ch] = append(reads[ch], c.Query.Encode())
	}
	wantReads := map[string][]string{
		testChan: {"after=1000&limit=50"},
		dm:       {"after=1005&limit=50", "after=1005&limit=50"}, // a 429, then the retry
		hidden:   {"after=1006&limit=50"},
	}
	if !maps.EqualFunc(reads, wantReads, slices.Equal) {
		t.Errorf("reads %q, want %q", reads, wantReads)
	}
	if s := log.String(); !strings.Contains(s, "messages=3 channels=2 checked=3") || !strings.Contains(s, "channel="+hidden) {
		t.Errorf("log:\n%s", s)
	}

	// A second recovery starts after what the first handed over.
	if e := a.active.Newest(backfillChannels); len(e) != 3 || e[0].Key != testChan || e[0].Val.lastID != "1003" {
		t.Errorf("after the recovery the channels are %+v; want %s first, at 1003", e, testChan)
	}
}
