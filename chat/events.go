package chat

import (
	"context"
	"time"
)

// Message is one inbound chat message, normalized by an adapter.
type Message struct {
	// Key is the durable dedupe key: accepted once, ever (Slack
	// team:channel:ts, Telegram update_id, Discord message id).
	Key    string
	ID     string // the platform's id of this message
	Thread Thread
	User   User
	Text   string // with the bot's own mention removed
	Place  Place
	// Gating facts, as the platform tells them.
	Direct    bool // a direct message to the bot
	Mentioned bool // the bot was mentioned, or the message replies to one of its messages
	FromBot   bool // written by a bot (including this one)
	// Files are what was attached to the message, in the platform's
	// order; downloading one is FileFetcher's (what an attachment says
	// about itself is untrusted, so only the adapter decides where to
	// fetch it and with which credentials). Omitted when empty, so
	// inbox records of plain messages read as before.
	Files []File `json:",omitempty"`
}

// File is one file a person attached to a message, as the platform
// described it. Nothing here is checked: a forged event can claim any
// name, type, size or URL, so FileFetcher treats Size as a hint and URL as
// a request it may refuse.
type File struct {
	// ID is the platform's id of the file (Slack F…, Telegram file_id,
	// Discord attachment id): Telegram can only fetch by it, and it names
	// the file in logs without its URL.
	ID   string
	Name string // the file name the person gave it
	MIME string // the declared type ("application/pdf"); "" when unknown
	// Size is the declared size in bytes, 0 when unknown. It lets a fetch
	// refuse an oversized file before downloading it; the limit is also
	// enforced while reading, since the size may be wrong.
	Size int64
	// URL is where the platform serves the file (Slack url_private_download,
	// Discord's CDN); "" where the platform gives none and the adapter
	// asks for one when fetching (Telegram's getFile).
	URL string
	// Duration is how long a recording plays (a voice note, an audio
	// clip) where the platform says it — Telegram's duration, Discord's
	// duration_secs, Slack's duration_ms — and 0 where it does not. It
	// lets a length limit refuse a recording before it is downloaded.
	Duration time.Duration `json:",omitempty"`
}

// Place describes where a message was written, for the model's prompt.
type Place struct {
	ChatName string
	ChatKind string // "terminal", "direct", "group", "channel"
	Thread   string
}

// Action is a button click.
type Action struct {
	Key     string // durable dedupe key (interaction / callback id)
	Thread  Thread
	User    User
	Data    string     // the button's payload, untrusted
	Message MessageRef // the message the button was under
	// Respond answers the clicker alone (ephemeral, callback alert); nil
	// where the platform has no such answer.
	Respond func(ctx context.Context, text string) error
}

// Command is a slash command (or its text form, "!memory"), normalized.
type Command struct {
	Key    string
	Thread Thread
	User   User
	Name   string // without the leading "/" or "!": "memory", "new", "help"
	Args   []string
	Direct bool // sent in a direct chat with the bot
	// Files are the files attached to the message the command was typed
	// in ("/kb add" with a document), for the command to fetch
	// (FileFetcher); nil for slash commands, which carry none.
	Files []File
	// Respond answers the caller alone, in place (Slack slash-command
	// response, Discord ephemeral reply); nil where the platform has no
	// such answer and private answers go by direct message.
	Respond func(ctx context.Context, out Out) error
}
