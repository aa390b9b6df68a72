package discord

import (
	"context"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/chat"
)

// normalize turns a MESSAGE_CREATE into a chat.Message
// (docs/architecture.md, Conversation identity):
//
//   - a DM: Thread{Chat: DM channel}, one continuing conversation;
//   - in a thread T under channel P: Thread{Space: guild, Chat: P, ID: T},
//     whoever opened it;
//   - in a guild channel P: Thread{Space: guild, Chat: P, ID: M}, where M
//     is the message itself, or, for a reply, the conversation of the
//     message it replies to. Replies are how a conversation continues
//     where the bot answers inline (no thread permission), and how people
//     talk about a message before its thread exists.
//
// ok is false for what is not a person's or a bot's chat message: system
// messages (thread created, pins, joins) and malformed events.
func (a *Adapter) normalize(ctx context.Context, m *discordgo.Message) (chat.Message, bool) {
	if m == nil || m.ID == "" || m.ChannelID == "" || m.Author == nil || m.Author.ID == "" {
		return chat.Message{}, false
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return chat.Message{}, false
	}
	me := a.identity()
	own := me.UserID != "" && m.Author.ID == me.UserID
	out := chat.Message{
		Key:     "discord:" + m.ID,
		ID:      m.ID,
		User:    userOf(m.Author),
		Text:    stripMention(m.Content, me.UserID),
		FromBot: m.Author.Bot || own,
		Files:   filesOf(m.Attachments),
	}
	mentioned := mentions(m.Mentions, me.UserID)
	out.Mentioned = mentioned || a.repliesToBot(m, me.UserID)

	if m.GuildID == "" {
		out.Direct = true
		out.Thread = chat.Thread{Platform: platform, Chat: m.ChannelID}
		out.Place = chat.Place{ChatKind: "direct"}
		if !own {
			a.noteDM(m.ChannelID, m.Author.ID) // only the bot and its person write here
		}
		a.msgs.Put(m.ID, seenMessage{byBot: own})
		return out, true
	}

	info := a.channel(ctx, m.ChannelID)
	if info.Thread && info.ParentID != "" {
		out.Thread = chat.Thread{Platform: platform, Space: m.GuildID, Chat: info.ParentID, ID: m.ChannelID}
		out.Place = chat.Place{ChatName: a.channel(ctx, info.ParentID).Name, ChatKind: "channel", Thread: info.Name}
		// Whoever opened it, the bot answers in it.
		a.modes.Put(m.ChannelID, inThread)
	} else {
		root := m.ID
		if ref := m.MessageReference; ref != nil && ref.MessageID != "" && (ref.ChannelID == "" || ref.ChannelID == m.ChannelID) {
			root = a.rootOf(ref.MessageID, m.ReferencedMessage, me.UserID)
		}
		out.Thread = chat.Thread{Platform: platform, Space: m.GuildID, Chat: m.ChannelID, ID: root}
		out.Place = chat.Place{ChatName: info.Name, ChatKind: "channel"}
	}
	a.msgs.Put(m.ID, seenMessage{name: threadName(out.Text), root: out.Thread.ID, byBot: own})

	if mentioned && !out.FromBot && strings.TrimSpace(m.Content) == "" && len(m.Attachments) == 0 {
		a.warnContentIntent()
	}
	return out, true
}

// rootOf is the conversation a reply to message id continues: the one
// the adapter saw id in, else (a restart in between) the root the bot's
// inline answer itself replied to, else id itself.
func (a *Adapter) rootOf(id string, ref *discordgo.Message, botID string) string {
	if s, ok := a.msgs.Get(id); ok && s.root != "" {
		return s.root
	}
	if ref != nil && ref.Author != nil && ref.Author.ID == botID &&
		ref.MessageReference != nil && ref.MessageReference.MessageID != "" {
		return ref.MessageReference.MessageID
	}
	return id
}

// repliesToBot reports whether m replies to one of the bot's messages,
// which counts as mentioning it.
func (a *Adapter) repliesToBot(m *discordgo.Message, botID string) bool {
	if botID == "" || m.MessageReference == nil || m.MessageReference.MessageID == "" {
		return false
	}
	if r := m.ReferencedMessage; r != nil && r.Author != nil {
		return r.Author.ID == botID
	}
	s, ok := a.msgs.Get(m.MessageReference.MessageID)
	return ok && s.byBot
}

// userOf is the person behind a Discord user: the name they chose to be
// shown under, else their account name.
func userOf(u *discordgo.User) chat.User {
	name := u.GlobalName
	if name == "" {
		name = u.Username
	}
	return chat.User{Platform: platform, ID: u.ID, Name: name}
}

func mentions(users []*discordgo.User, id string) bool {
	if id == "" {
		return false
	}
	for _, u := range users {
		if u != nil && u.ID == id {
			return true
		}
	}
	return false
}

// stripMention removes the bot's mention, in both spellings (<@id>, and
// <@!id> from nickname-era clients), so the model reads what was said.
func stripMention(text, id string) string {
	if id != "" {
		text = strings.ReplaceAll(text, "<@"+id+">", "")
		text = strings.ReplaceAll(text, "<@!"+id+">", "")
	}
	return strings.TrimSpace(text)
}
