package discord

import (
	"context"
	"strings"

	"github.com/parleybot/parley/chat"
)

var _ chat.MessageLinker = (*Adapter)(nil)

// MessageLink is a message's jump link,
// https://discord.com/channels/<server or @me>/<channel>/<message>. The
// message's channel is the thread's when t.ID is a thread (normalize's
// Thread{Space, Chat: parent, ID: thread}), else t.Chat; key is
// "discord:<message id>", "" for t's root message (or its channel, in a
// DM). "" for a key that is not a Discord message's.
func (a *Adapter) MessageLink(ctx context.Context, t chat.Thread, key string) string {
	if t.Chat == "" {
		return ""
	}
	server := t.Space
	if server == "" {
		server = "@me"
	}
	channel, msg := t.Chat, t.ID
	if t.ID != "" && a.channel(ctx, t.ID).Thread {
		channel, msg = t.ID, ""
	}
	if key != "" {
		id, ok := strings.CutPrefix(key, "discord:")
		if !ok || id == "" || strings.Contains(id, ":") {
			return ""
		}
		msg = id
	}
	link := "https://discord.com/channels/" + server + "/" + channel
	if msg != "" {
		link += "/" + msg
	}
	return link
}
