package slack

import (
	"strings"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/chat"
)

// Normalization: pure functions from slack-go's types to the core's
// events. They do no I/O; display names and the Respond functions are
// filled in by the adapter afterwards.

const platform = "slack"

// umbrellaCommand is the one slash command the manifest declares; its
// first word is the command proper ("/parley memory forget 2").
const umbrellaCommand = "/parley"

// self is who the bot is in the workspace, from auth.test: messages by
// it are its own, and its mention is stripped from what people write.
type self struct {
	UserID string // U…: what <@U…> mentions name
	BotID  string // B…: the bot_id on its own messages
	URL    string // https://<workspace>.slack.com/: where permalinks start
}

// ignoredMessage reports whether a message subtype starts no run: edits
// (our own chat.update comes back as message_changed), deletions, joins
// and the like. Plain messages, file shares, /me and broadcasts of a
// thread reply are things people wrote; bot_message is passed on,
// flagged FromBot.
func ignoredMessage(subtype string) bool {
	switch subtype {
	case "", "bot_message", "file_share", "me_message", "thread_broadcast":
		return false
	}
	return true
}

// normalizeEvent turns an Events API callback into a Message; ok is false
// for events that carry no new message.
func normalizeEvent(e slackevents.EventsAPIEvent, me self) (chat.Message, bool) {
	switch ev := e.InnerEvent.Data.(type) {
	case *slackevents.MessageEvent:
		return normalizeMessage(e.TeamID, ev, me)
	case *slackevents.AppMentionEvent:
		return normalizeMention(e.TeamID, ev, me)
	}
	return chat.Message{}, false
}

// normalizeMessage turns a message event from workspace team into a
// Message; ok is false for events that are no new message.
func normalizeMessage(team string, ev *slackevents.MessageEvent, me self) (chat.Message, bool) {
	if ev == nil || ignoredMessage(ev.SubType) || ev.Channel == "" || ev.TimeStamp == "" {
		return chat.Message{}, false
	}
	if team == "" {
		team = ev.UserTeam
	}
	direct := ev.ChannelType == slackevents.ChannelTypeIM || (ev.ChannelType == "" && isDMChannel(ev.Channel))
	user := ev.User
	if user == "" {
		user = ev.BotID // a bot_message has no user; the bot is the author
	}
	m := chat.Message{
		Key:       messageKey(team, ev.Channel, ev.TimeStamp),
		ID:        ev.TimeStamp,
		Thread:    messageThread(team, ev.Channel, ev.TimeStamp, ev.ThreadTimeStamp, direct),
		User:      chat.User{Platform: platform, ID: user},
		Text:      stripMention(ev.Text, me.UserID),
		Direct:    direct,
		Mentioned: mentions(ev.Text, me.UserID),
		FromBot:   ev.BotID != "" || ev.SubType == "bot_message" || (me.UserID != "" && ev.User == me.UserID),
		Files:     filesOf(messageFiles(ev)),
	}
	m.Place = place(ev.ChannelType, direct, m.Thread.ID)
	return m, true
}

// normalizeMention turns an app_mention into the same Message as its twin
// message event (same Key), so whichever arrives first wins the inbox and
// the other is dropped there.
func normalizeMention(team string, ev *slackevents.AppMentionEvent, me self) (chat.Message, bool) {
	if ev == nil || ev.Edited != nil || ev.Channel == "" || ev.TimeStamp == "" {
		// An edit that adds a mention arrives as app_mention again: the
		// message was already answered, or deliberately not.
		return chat.Message{}, false
	}
	if team == "" {
		team = ev.UserTeam
	}
	direct := isDMChannel(ev.Channel)
	m := chat.Message{
		Key:       messageKey(team, ev.Channel, ev.TimeStamp),
		ID:        ev.TimeStamp,
		Thread:    messageThread(team, ev.Channel, ev.TimeStamp, ev.ThreadTimeStamp, direct),
		User:      chat.User{Platform: platform, ID: ev.User},
		Text:      stripMention(ev.Text, me.UserID),
		Direct:    direct,
		Mentioned: true,
		FromBot:   ev.BotID != "" || (me.UserID != "" && ev.User == me.UserID),
		// The same files as the twin message event's, so whichever event
		// wins the inbox carries them.
		Files: filesOf(ev.Files),
	}
	if m.User.ID == "" {
		m.User.ID = ev.BotID
	}
	m.Place = place("", direct, m.Thread.ID)
	return m, true
}

// normalizeAction turns a block_actions click on one of our buttons into
// an Action; ok is false for other interactions (views, shortcuts) and
// for clicks without a message to refer to.
func normalizeAction(cb *slack.InteractionCallback) (chat.Action, bool) {
	if cb == nil || cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) == 0 {
		return chat.Action{}, false
	}
	act := cb.ActionCallback.BlockActions[0]
	if act == nil {
		return chat.Action{}, false
	}
	channel := cb.Container.ChannelID
	if channel == "" {
		channel = cb.Channel.ID
	}
	msgTS := cb.Container.MessageTs
	if msgTS == "" {
		msgTS = cb.Message.Timestamp
	}
	if channel == "" || msgTS == "" {
		return chat.Action{}, false
	}
	threadTS := cb.Container.ThreadTs
	if threadTS == "" {
		threadTS = cb.Message.ThreadTimestamp
	}
	team := cb.Team.ID
	direct := isDMChannel(channel)
	th := messageThread(team, channel, msgTS, threadTS, direct)
	key := cb.TriggerID
	if key == "" {
		// trigger_id is unique per click; without it, the click's own
		// timestamp tells two clicks apart.
		key = team + ":" + channel + ":" + msgTS + ":" + act.ActionTs
	}
	return chat.Action{
		Key:     key,
		Thread:  th,
		User:    chat.User{Platform: platform, ID: cb.User.ID, Name: cb.User.Name},
		Data:    act.Value,
		Message: chat.MessageRef{Thread: th, ID: msgTS},
	}, true
}

// normalizeCommand turns a slash command into a Command. Slack sends no
// thread with slash commands, so the conversation is the channel.
func normalizeCommand(sc *slack.SlashCommand) (chat.Command, bool) {
	if sc == nil || sc.Command == "" || sc.ChannelID == "" || sc.UserID == "" {
		return chat.Command{}, false
	}
	fields := strings.Fields(sc.Text)
	name := strings.ToLower(strings.TrimPrefix(sc.Command, "/"))
	if strings.EqualFold(sc.Command, umbrellaCommand) {
		name = "help"
		if len(fields) > 0 {
			name, fields = strings.ToLower(strings.TrimLeft(fields[0], "/!")), fields[1:]
		}
	}
	var key string
	if sc.TriggerID != "" {
		key = "slash:" + sc.TeamID + ":" + sc.TriggerID
	}
	return chat.Command{
		Key:    key,
		Thread: chat.Thread{Platform: platform, Space: sc.TeamID, Chat: sc.ChannelID},
		User:   chat.User{Platform: platform, ID: sc.UserID, Name: sc.UserName},
		Name:   name,
		Args:   fields,
		Direct: isDMChannel(sc.ChannelID) || sc.ChannelName == "directmessage",
	}, true
}

// messageKey is the durable key of a message: Slack sends one mention as
// both message and app_mention, with different event ids and the same ts.
func messageKey(team, channel, ts string) string { return team + ":" + channel + ":" + ts }

// messageThread is the conversation of a message: in a channel the thread
// root (a top-level message roots a new thread); in a DM the continuing
// conversation, unless the message is inside a thread there.
func messageThread(team, channel, ts, threadTS string, direct bool) chat.Thread {
	t := chat.Thread{Platform: platform, Space: team, Chat: channel, ID: threadTS}
	if t.ID == "" && !direct {
		t.ID = ts
	}
	return t
}

// isDMChannel: direct-message channel ids start with D.
func isDMChannel(channel string) bool { return strings.HasPrefix(channel, "D") }

// place describes the conversation for the model's prompt.
func place(channelType string, direct bool, threadID string) chat.Place {
	p := chat.Place{ChatKind: "channel", Thread: threadID}
	switch {
	case direct:
		p.ChatKind = "direct"
	case channelType == slackevents.ChannelTypeGroup || channelType == slackevents.ChannelTypeMPIM:
		p.ChatKind = "group"
	}
	return p
}

// mentions reports whether text mentions the bot (<@U…> or <@U…|name>).
func mentions(text, botUser string) bool {
	return botUser != "" && mentionAt(text, botUser) >= 0
}

// mentionAt returns where the first mention of botUser in text starts and
// -1 if there is none. A prefix match (<@U1 in <@U12>) is not a mention.
func mentionAt(text, botUser string) int {
	open := "<@" + botUser
	for from := 0; ; {
		i := strings.Index(text[from:], open)
		if i < 0 {
			return -1
		}
		i += from
		if rest := text[i+len(open):]; strings.HasPrefix(rest, ">") || strings.HasPrefix(rest, "|") && strings.Contains(rest, ">") {
			return i
		}
		from = i + 1
	}
}

// stripMention removes every mention of the bot from text, with the space
// after it, and trims the result: "<@UBOT> summarize" reads "summarize".
// It repeats until none is left, since removing one mention can join the
// text around it into another.
func stripMention(text, botUser string) string {
	if botUser == "" {
		return strings.TrimSpace(text)
	}
	for {
		i := mentionAt(text, botUser)
		if i < 0 {
			return strings.TrimSpace(text)
		}
		end := i + strings.IndexByte(text[i:], '>') + 1
		if end < len(text) && text[end] == ' ' && (i == 0 || text[i-1] == ' ') {
			end++ // one space of the two around it
		}
		text = text[:i] + text[end:]
	}
}
