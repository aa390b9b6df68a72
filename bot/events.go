package bot

import "context"

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
	// Respond answers the caller alone, in place (Slack slash-command
	// response, Discord ephemeral reply); nil where the platform has no
	// such answer and private answers go by direct message.
	Respond func(ctx context.Context, out Out) error
}
