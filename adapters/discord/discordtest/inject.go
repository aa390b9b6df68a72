package discordtest

import (
	"errors"
	"fmt"
)

// Errors of the injection helpers.
var (
	ErrUnknownChannel = errors.New("discordtest: unknown channel")
	ErrUnknownMessage = errors.New("discordtest: unknown message")
	ErrNoSuchButton   = errors.New("discordtest: no such clickable button")
	ErrUnknownCommand = errors.New("discordtest: command not registered")
)

// Incoming is a message a user (or another bot) posts.
type Incoming struct {
	Channel string // a guild text channel, a thread id or a DM channel id
	Author  string // an AddUser'd user id
	Content string
	Mention bool   // prefix "<@BOTID> " so the message mentions the bot
	FromBot bool   // the author is a bot (author.bot = true)
	ReplyTo string // message_reference.message_id (and referenced_message); "" none
	// Attachments are files sent with the message, served at their
	// CDN-style url by the fake (files.go).
	Attachments []Attachment
}

// Post stores a user's message and dispatches MESSAGE_CREATE (with guild_id
// and member in guild channels and threads). The channel must exist.
func (s *Server) Post(in Incoming) (messageID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, found := s.w.channels[in.Channel]
	if !found {
		panic(fmt.Sprintf("discordtest: Post to unknown channel %q; add it with AddChannel, DMChannel or a thread", in.Channel))
	}
	u := s.w.user(in.Author)
	u.bot = u.bot || in.FromBot
	content := in.Content
	if in.Mention {
		content = "<@" + s.w.botID + "> " + content
	}
	m := &message{id: s.w.snowflake(s.now()), channelID: c.ID, guildID: c.GuildID, authorID: u.id, bot: u.bot,
		content: content, created: s.now()}
	replied := ""
	if ref, ok := s.w.channelMessage(c.ID, in.ReplyTo); ok {
		m.reference, replied = ref.id, ref.authorID
	}
	s.applyPings(m, nil, replied) // people's clients send no allowed_mentions
	s.attachLocked(m, in.Attachments)
	s.w.addMessage(m)
	s.emitMessageLocked("MESSAGE_CREATE", m)
	s.notifyLocked()
	return m.id
}

// Redispatch sends a message's MESSAGE_CREATE again, as a duplicate delivery.
func (s *Server) Redispatch(messageID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, found := s.w.messages[messageID]
	if !found || m.deleted || m.ephemeralFor != "" {
		return fmt.Errorf("redispatch %s: %w", messageID, ErrUnknownMessage)
	}
	s.emitMessageLocked("MESSAGE_CREATE", m)
	s.notifyLocked()
	return nil
}

// Click presses a button of a message, counted row by row, left to right,
// and dispatches the INTERACTION_CREATE (type 3) Discord sends for it.
func (s *Server) Click(channelID, messageID string, button int, by string) (interactionID string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, found := s.w.channels[channelID]
	if !found {
		return "", fmt.Errorf("click in %s: %w", channelID, ErrUnknownChannel)
	}
	m, found := s.w.channelMessage(channelID, messageID)
	if !found {
		return "", fmt.Errorf("click on %s: %w", messageID, ErrUnknownMessage)
	}
	var flat []Button
	for _, row := range m.buttons {
		flat = append(flat, row...)
	}
	if button < 0 || button >= len(flat) || flat[button].Style == buttonLink || flat[button].Disabled {
		return "", fmt.Errorf("click button %d of %s (%d buttons): %w", button, messageID, len(flat), ErrNoSuchButton)
	}
	s.w.user(by)
	in := s.newInteractionLocked(interactionComponent, c, by)
	in.messageID = m.id
	msg := s.w.messageJSON(m, 0)
	s.emitInteractionLocked(in, map[string]any{"custom_id": flat[button].CustomID, "component_type": componentButton}, &msg)
	return in.id, nil
}

// CommandOption is an option of a slash command invocation.
type CommandOption struct {
	Name    string
	Type    int             // 1 subcommand, 2 group, 3 string, 4 integer, 5 boolean…
	Value   any             // for non-subcommands
	Options []CommandOption // for subcommands and groups
}

func optionsJSON(opts []CommandOption) []map[string]any {
	out := make([]map[string]any, 0, len(opts))
	for _, o := range opts {
		m := map[string]any{"name": o.Name, "type": o.Type}
		if o.Value != nil {
			m["value"] = o.Value
		}
		if o.Type == 1 || o.Type == 2 {
			m["options"] = optionsJSON(o.Options)
		}
		out = append(out, m)
	}
	return out
}

// Command invokes a registered slash command (guild commands of the
// channel's guild, then global ones) and dispatches INTERACTION_CREATE type 2.
func (s *Server) Command(channelID, userID, name string, options ...CommandOption) (interactionID string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, found := s.w.channels[channelID]
	if !found {
		return "", fmt.Errorf("command in %s: %w", channelID, ErrUnknownChannel)
	}
	find := func(guildID string) *registeredCommand {
		for i, rc := range s.w.commands[guildID] {
			if rc.Name == name && rc.typ == 1 {
				return &s.w.commands[guildID][i]
			}
		}
		return nil
	}
	var cmd *registeredCommand
	if c.GuildID != "" {
		cmd = find(c.GuildID)
	}
	if cmd == nil {
		cmd = find("")
	}
	if cmd == nil {
		return "", fmt.Errorf("command /%s: %w", name, ErrUnknownCommand)
	}
	s.w.user(userID)
	in := s.newInteractionLocked(interactionCommand, c, userID)
	data := map[string]any{"id": cmd.id, "name": cmd.Name, "type": 1, "options": optionsJSON(options)}
	if cmd.GuildID != "" {
		data["guild_id"] = cmd.GuildID
	}
	s.emitInteractionLocked(in, data, nil)
	return in.id, nil
}

type wireInteraction struct {
	ID             string            `json:"id"`
	ApplicationID  string            `json:"application_id"`
	Type           int               `json:"type"`
	Data           any               `json:"data"`
	GuildID        string            `json:"guild_id,omitempty"`
	ChannelID      string            `json:"channel_id"`
	Channel        wireChannel       `json:"channel"`
	Member         *wireMember       `json:"member,omitempty"`
	User           *wireUser         `json:"user,omitempty"`
	Token          string            `json:"token"`
	Version        int               `json:"version"`
	Message        *wireMessage      `json:"message,omitempty"`
	AppPermissions string            `json:"app_permissions"`
	Locale         string            `json:"locale"`
	GuildLocale    string            `json:"guild_locale,omitempty"`
	Context        int               `json:"context"`
	Owners         map[string]string `json:"authorizing_integration_owners"`
	Entitlements   []any             `json:"entitlements"`
}

func (s *Server) emitInteractionLocked(in *interaction, data any, msg *wireMessage) {
	c := s.w.channels[in.channelID]
	w := wireInteraction{
		ID: in.id, ApplicationID: s.w.botID, Type: in.typ, Data: data, GuildID: in.guildID,
		ChannelID: in.channelID, Channel: s.w.channelJSON(c), Token: in.token, Version: 1, Message: msg,
		AppPermissions: "2248473465835073", Locale: "en-US", Entitlements: []any{},
	}
	if in.guildID != "" {
		w.Member = s.w.memberJSON(in.userID, true, c.created)
		w.GuildLocale = "en-US"
		w.Owners = map[string]string{"0": in.guildID}
	} else {
		u := s.w.userJSON(in.userID)
		w.User = &u
		w.Context = 1 // BOT_DM
		w.Owners = map[string]string{"1": in.userID}
	}
	s.emitLocked(event{t: "INTERACTION_CREATE", d: w, interactionID: in.id, id: in.id, guild: in.guildID})
	s.notifyLocked()
}
