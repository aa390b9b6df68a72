package discordtest

import (
	"encoding/json"
	"slices"
	"strings"
)

// Message is a message as the fake holds it now (edits applied).
type Message struct {
	ID, ChannelID, GuildID, AuthorID string
	Bot                              bool
	Content                          string
	Buttons                          [][]Button // action rows
	Reference                        string     // message_reference.message_id
	Flags                            int
	// Pings is who the message notified when posted or edited, by Discord's
	// rules under its allowed_mentions: "everyone", "here", "user:<id>",
	// "role:<id>". It accumulates over edits: a notification cannot be undone.
	Pings []string
	// AllowedMentions is the allowed_mentions of the call that last set
	// the content (the create, or an edit with content); nil when that
	// call had none, which lets Discord ping everything the content names.
	AllowedMentions *AllowedMentions
	Edits           int
}

// PingedUsers returns the ids of the people the message notified, in
// order, by Discord's rules (Pings): a <@id> or <@!id> in the content that
// allowed_mentions let through (parse ["users"], or the id in users), or
// the author of the message it replies to with replied_user.
func (m Message) PingedUsers() []string {
	var ids []string
	for _, p := range m.Pings {
		if id, ok := strings.CutPrefix(p, "user:"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

func (m *message) public() Message {
	rows := make([][]Button, 0, len(m.buttons))
	for _, r := range m.buttons {
		rows = append(rows, slices.Clone(r))
	}
	if len(rows) == 0 {
		rows = nil
	}
	return Message{ID: m.id, ChannelID: m.channelID, GuildID: m.guildID, AuthorID: m.authorID, Bot: m.bot,
		Content: m.content, Buttons: rows, Reference: m.reference, Flags: m.flags,
		Pings: slices.Clone(m.pings), AllowedMentions: m.allowed.clone(), Edits: m.edits}
}

// Messages returns every non-deleted message of a channel, oldest first,
// users' and the bot's (ephemeral ones are in Ephemeral).
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, id := range s.w.order[channelID] {
		if m := s.w.messages[id]; !m.deleted {
			out = append(out, m.public())
		}
	}
	return out
}

// BotMessages returns the bot's messages of a channel, oldest first.
func (s *Server) BotMessages(channelID string) []Message {
	var out []Message
	for _, m := range s.Messages(channelID) {
		if m.AuthorID == s.opts.botID {
			out = append(out, m)
		}
	}
	return out
}

// Channel returns a channel (text, DM or thread).
func (s *Server) Channel(id string) (Channel, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.w.channels[id]
	if !ok {
		return Channel{}, false
	}
	return c.Channel, true
}

// ThreadOf returns the thread started on a message, if any.
func (s *Server) ThreadOf(messageID string) (Channel, bool) {
	c, ok := s.Channel(messageID)
	if !ok || c.Type != channelThread {
		return Channel{}, false
	}
	return c, true
}

// InteractionReplies returns every callback, follow-up and edit the bot made
// for an interaction, failed ones included (see Status), in order.
func (s *Server) InteractionReplies(interactionID string) []InteractionReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.w.replies[interactionID])
}

// Ephemeral returns the texts shown to that user alone (ephemeral responses,
// follow-ups and edits of an ephemeral original), oldest first.
func (s *Server) Ephemeral(userID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.w.ephemeral[userID])
}

// Calls returns every REST call answered so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Typing is how many POST /channels/{id}/typing the channel received.
func (s *Server) Typing(channelID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.typing[channelID]
}

// Commands returns the commands as last bulk-overwritten ("" = global).
func (s *Server) Commands(guildID string) []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Command
	for _, c := range s.w.commands[guildID] {
		cmd := c.Command
		cmd.Options = slices.Clone(json.RawMessage(c.Options))
		out = append(out, cmd)
	}
	return out
}

// RateLimited counts the 429s answered because a limit was hit (injected
// ones are not counted).
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateLimited
}

// Identifies counts the IDENTIFYs (op 2) accepted, of every shard.
func (s *Server) Identifies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.totalIdentifies()
}

// ShardIdentifies counts the IDENTIFYs accepted for shard.
func (s *Server) ShardIdentifies(shard int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.identifies[shard]
}

func (g *gateway) totalIdentifies() int {
	n := 0
	for _, c := range g.identifies {
		n += c
	}
	return n
}

// Dispatch is an event the fake gave a shard's session (replays on
// RESUME are not counted again).
type Dispatch struct {
	Shard   int
	Type    string // MESSAGE_CREATE, GUILD_CREATE…
	ID      string // the message, channel, guild or interaction
	GuildID string // "" in DMs
}

// Dispatches are the events given to the shards' sessions, in order.
func (s *Server) Dispatches() []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gw.dispatches)
}

// ShardOf is the shard that guild's events go to with shards shards
// (Discord's (guild_id >> 22) % shards; DMs, guild "", go to shard 0).
func ShardOf(guild string, shards int) int { return shardOf(guild, shards) }

// Resumes counts the successful RESUMEs (op 6).
func (s *Server) Resumes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.resumes
}

// Heartbeats counts the heartbeats (op 1) received.
func (s *Server) Heartbeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.heartbeats
}

// Connected reports whether a client is identified (or resumed) and
// receiving dispatches on every shard of the last IDENTIFY's count.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.gw.shards {
		if !s.gw.shardConnected(i) {
			return false
		}
	}
	return true
}

// ShardConnected is Connected for shard alone.
func (s *Server) ShardConnected(shard int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.shardConnected(shard)
}

func (g *gateway) shardConnected(shard int) bool {
	cur := g.current[shard]
	return cur != nil && cur.conn != nil
}

// Intents returns the intents of the last accepted IDENTIFY.
func (s *Server) Intents() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.intents
}
