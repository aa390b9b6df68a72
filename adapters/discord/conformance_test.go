package discord_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

// TestConformance runs the adapter conformance suite against the real
// adapter, discordgo's real REST client and gateway, wired to discordtest.
func TestConformance(t *testing.T) {
	bottest.RunConformance(t, newDiscordHarness)
}

const confGuild = "700000000000000001"

// discordHarness is a bottest.Harness over discordtest and the adapter.
//
// A group conversation is a root message a person posted in a fresh guild
// channel P: Thread{Space: guild, Chat: P, ID: root}. Until the bot's
// first answer opens the thread on the root, the suite's messages "in"
// the conversation are replies to the root in P (which the adapter maps
// to the root's conversation, as it does for inline answers); once the
// thread exists they are written in the thread. Either way they normalize
// to the same chat.Thread, which is what the suite checks.
type discordHarness struct {
	srv *discordtest.Server
	ad  *discord.Adapter

	mu     sync.Mutex
	users  map[string]bool
	nextCh int
}

func newDiscordHarness(t *testing.T) bottest.Harness {
	// The fake's own limits are off: the suite provokes 429s only through
	// RateLimitNext.
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddGuild(confGuild, "conformance")
	ad, err := discord.New(discord.Config{
		Token:  srv.Token(),
		APIURL: srv.APIURL(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("discord.New: %v", err)
	}
	return &discordHarness{srv: srv, ad: ad, users: map[string]bool{}}
}

func (h *discordHarness) Adapter() chat.Adapter { return h.ad }

// User gives each name a stable snowflake-shaped id.
func (h *discordHarness) User(name string) chat.User {
	f := fnv.New64a()
	_, _ = f.Write([]byte(name))
	id := fmt.Sprintf("3%017d", f.Sum64()%1e17)
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.users[id] {
		h.users[id] = true
		h.srv.AddUser(id, name)
	}
	return chat.User{Platform: "discord", ID: id, Name: name}
}

func (h *discordHarness) Thread(kind bottest.ThreadKind, with chat.User) chat.Thread {
	if kind == bottest.DirectThread {
		return chat.Thread{Platform: "discord", Chat: h.srv.DMChannel(with.ID)}
	}
	h.mu.Lock()
	h.nextCh++
	n := h.nextCh
	h.mu.Unlock()
	ch := fmt.Sprintf("6%017d", n)
	h.srv.AddChannel(confGuild, ch, fmt.Sprintf("conformance-%d", n))
	root := h.srv.Post(discordtest.Incoming{Channel: ch, Author: with.ID, Content: "starting a conversation"})
	return chat.Thread{Platform: "discord", Space: confGuild, Chat: ch, ID: root}
}

// where is the channel the bot's messages of t are in, and the message
// the suite's messages there reply to: the thread once it is open, else
// the parent channel, replying to the root.
func (h *discordHarness) where(t chat.Thread) (channel, replyTo string) {
	if t.ID == "" {
		return t.Chat, ""
	}
	if th, ok := h.srv.ThreadOf(t.ID); ok {
		return th.ID, ""
	}
	return t.Chat, t.ID
}

func (h *discordHarness) UserMessage(_ context.Context, m bottest.MessageSpec) (string, error) {
	if m.Thread.Chat == "" {
		return "", errors.New("discord harness: message without a channel")
	}
	ch, replyTo := h.where(m.Thread)
	id := h.srv.Post(discordtest.Incoming{Channel: ch, Author: m.From.ID, Content: m.Text,
		Mention: m.Mention, FromBot: m.FromBot, ReplyTo: replyTo})
	if m.Twice {
		// Discord repeats a dispatch when a RESUME replays what the
		// client had not acknowledged.
		if err := h.srv.Redispatch(id); err != nil {
			return "", err
		}
	}
	return id, nil
}

func (h *discordHarness) Click(_ context.Context, ref chat.MessageRef, button int, by chat.User) error {
	ch, _ := h.where(ref.Thread)
	// Inline answers live in the parent even when a thread exists.
	for _, c := range []string{ch, ref.Thread.Chat} {
		if slices.ContainsFunc(h.srv.BotMessages(c), func(m discordtest.Message) bool { return m.ID == ref.ID }) {
			_, err := h.srv.Click(c, ref.ID, button, by.ID)
			return err
		}
	}
	return fmt.Errorf("discord harness: no bot message %s in %v", ref.ID, ref.Thread)
}

func (h *discordHarness) Visible(t chat.Thread) []bottest.Visible {
	var msgs []discordtest.Message
	ch, _ := h.where(t)
	if ch != t.Chat {
		msgs = h.srv.BotMessages(ch)
	}
	for _, m := range h.srv.BotMessages(t.Chat) {
		// In the parent: the conversation's inline answers; in a DM,
		// everything.
		if t.ID == "" || m.Reference == t.ID {
			msgs = append(msgs, m)
		}
	}
	var vis []bottest.Visible
	for _, m := range msgs {
		if m.Flags&64 != 0 {
			continue // ephemeral
		}
		text, bold, code := readDiscord(m.Content)
		// Discord embeds a link unless the message suppresses embeds.
		v := bottest.Visible{ID: m.ID, Text: text, Bold: bold, Code: code,
			Previews: m.Flags&int(discordgo.MessageFlagsSuppressEmbeds) == 0 && strings.Contains(m.Content, "://")}
		for _, row := range m.Buttons {
			for _, b := range row {
				v.Buttons = append(v.Buttons, b.Label)
			}
		}
		for _, p := range m.Pings {
			if p == "everyone" || p == "here" {
				v.Pings = append(v.Pings, p)
			}
		}
		vis = append(vis, v)
	}
	return vis
}

func (h *discordHarness) PrivateTo(u chat.User) []string {
	out := slices.Clone(h.srv.Ephemeral(u.ID))
	for _, m := range h.srv.BotMessages(h.srv.DMChannel(u.ID)) {
		text, _, _ := readDiscord(m.Content)
		out = append(out, text)
	}
	return out
}

func (h *discordHarness) RateLimitNext(op bottest.Op, retryAfter time.Duration) {
	switch op {
	case bottest.OpSend:
		h.srv.RateLimitNext("POST /channels/{id}/messages", retryAfter)
	case bottest.OpEdit:
		h.srv.RateLimitNext("PATCH /channels/{id}/messages/{id}", retryAfter)
	default:
		panic(fmt.Sprintf("discord harness: no rate limit for %v", op))
	}
}

func (h *discordHarness) RendersMarkdown() bool { return true }
