package discordtest

import (
	"encoding/json"
	"time"
)

// The wire shapes below follow Discord's objects (and discordgo's structs.go).

type wireUser struct {
	ID            string  `json:"id"`
	Username      string  `json:"username"`
	Discriminator string  `json:"discriminator"`
	GlobalName    string  `json:"global_name,omitempty"`
	Avatar        *string `json:"avatar"`
	Bot           bool    `json:"bot,omitempty"`
}

// wireMember is a guild member object. The nullable fields are null as
// for a member without a nickname, guild avatar, boost or timeout;
// permissions is only in interactions.
type wireMember struct {
	User                       *wireUser `json:"user,omitempty"`
	Nick                       *string   `json:"nick"`
	Avatar                     *string   `json:"avatar"`
	Banner                     *string   `json:"banner"`
	Roles                      []string  `json:"roles"`
	JoinedAt                   string    `json:"joined_at"`
	PremiumSince               *string   `json:"premium_since"`
	Deaf                       bool      `json:"deaf"`
	Mute                       bool      `json:"mute"`
	Flags                      int       `json:"flags"`
	Pending                    bool      `json:"pending"`
	CommunicationDisabledUntil *string   `json:"communication_disabled_until"`
	Permissions                string    `json:"permissions,omitempty"`
}

type wireThreadMeta struct {
	Archived            bool   `json:"archived"`
	AutoArchiveDuration int    `json:"auto_archive_duration"`
	ArchiveTimestamp    string `json:"archive_timestamp"`
	Locked              bool   `json:"locked"`
}

type wireChannel struct {
	ID             string          `json:"id"`
	Type           int             `json:"type"`
	GuildID        string          `json:"guild_id,omitempty"`
	Name           string          `json:"name,omitempty"`
	ParentID       *string         `json:"parent_id,omitempty"`
	OwnerID        string          `json:"owner_id,omitempty"`
	LastMessageID  *string         `json:"last_message_id"`
	Recipients     []wireUser      `json:"recipients,omitempty"`
	ThreadMetadata *wireThreadMeta `json:"thread_metadata,omitempty"`
	MessageCount   *int            `json:"message_count,omitempty"`
	MemberCount    *int            `json:"member_count,omitempty"`
	NewlyCreated   bool            `json:"newly_created,omitempty"`
	Flags          int             `json:"flags"`
}

type wireReference struct {
	Type      int    `json:"type"`
	MessageID string `json:"message_id"`
	ChannelID string `json:"channel_id"`
	GuildID   string `json:"guild_id,omitempty"`
}

type wireMessage struct {
	ID                string           `json:"id"`
	ChannelID         string           `json:"channel_id"`
	GuildID           string           `json:"guild_id,omitempty"`
	Nonce             string           `json:"nonce,omitempty"`
	Author            wireUser         `json:"author"`
	Member            *wireMember      `json:"member,omitempty"`
	Content           string           `json:"content"`
	Timestamp         string           `json:"timestamp"`
	EditedTimestamp   *string          `json:"edited_timestamp"`
	TTS               bool             `json:"tts"`
	MentionEveryone   bool             `json:"mention_everyone"`
	Mentions          []wireUser       `json:"mentions"`
	MentionRoles      []string         `json:"mention_roles"`
	Attachments       []wireAttachment `json:"attachments"`
	Embeds            []struct{}       `json:"embeds"`
	Components        json.RawMessage  `json:"components"`
	Pinned            bool             `json:"pinned"`
	Type              int              `json:"type"`
	Flags             int              `json:"flags"`
	WebhookID         string           `json:"webhook_id,omitempty"`
	ApplicationID     string           `json:"application_id,omitempty"`
	MessageReference  *wireReference   `json:"message_reference,omitempty"`
	ReferencedMessage *wireMessage     `json:"referenced_message,omitempty"`
	Thread            *wireChannel     `json:"thread,omitempty"`
}

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000+00:00") }

func (w *world) userJSON(id string) wireUser {
	u := w.user(id)
	return wireUser{ID: u.id, Username: u.name, Discriminator: "0", GlobalName: u.name, Bot: u.bot}
}

func (w *world) memberJSON(userID string, withUser bool, joined time.Time) *wireMember {
	m := &wireMember{Roles: []string{}, JoinedAt: timestamp(joined), Permissions: "2248473465835073"}
	if withUser {
		u := w.userJSON(userID)
		m.User = &u
	}
	return m
}

func (w *world) channelJSON(c *channel) wireChannel {
	out := wireChannel{ID: c.ID, Type: c.Type, GuildID: c.GuildID, Name: c.Name}
	if ids := w.order[c.ID]; len(ids) > 0 {
		last := ids[len(ids)-1]
		out.LastMessageID = &last
	}
	switch c.Type {
	case channelDM:
		out.Recipients = []wireUser{w.userJSON(c.recipient)}
	case channelThread:
		parent := c.ParentID
		out.ParentID = &parent
		out.OwnerID = w.botID
		n, members := len(w.order[c.ID]), 1
		out.MessageCount, out.MemberCount = &n, &members
		out.ThreadMetadata = &wireThreadMeta{AutoArchiveDuration: c.archiveAfter, ArchiveTimestamp: timestamp(c.created)}
	}
	return out
}

// messageJSON renders a message; depth limits referenced_message nesting to
// one level, as Discord does.
func (w *world) messageJSON(m *message, depth int) wireMessage {
	out := wireMessage{
		ID: m.id, ChannelID: m.channelID, GuildID: m.guildID, Nonce: m.nonce,
		Author:          w.userJSON(m.authorID),
		Content:         m.content,
		Timestamp:       timestamp(m.created),
		Mentions:        []wireUser{},
		MentionRoles:    []string{},
		Attachments:     w.attachmentsJSON(m),
		Embeds:          []struct{}{},
		Components:      m.components,
		Flags:           m.flags,
		WebhookID:       m.webhookID,
		MentionEveryone: m.mentionEveryone,
	}
	if out.Components == nil {
		out.Components = json.RawMessage("[]")
	}
	if m.webhookID != "" {
		out.ApplicationID = w.botID
	}
	if !m.edited.IsZero() {
		t := timestamp(m.edited)
		out.EditedTimestamp = &t
	}
	for _, id := range m.mentions {
		out.Mentions = append(out.Mentions, w.userJSON(id))
	}
	out.MentionRoles = append(out.MentionRoles, m.mentionRoles...)
	if m.reference != "" {
		out.Type = 19 // REPLY
		out.MessageReference = &wireReference{MessageID: m.reference, ChannelID: m.channelID, GuildID: m.guildID}
		if ref, ok := w.messages[m.reference]; ok && !ref.deleted && depth == 0 {
			r := w.messageJSON(ref, depth+1)
			out.ReferencedMessage = &r
		}
	}
	if th, ok := w.channels[m.id]; ok && th.Type == channelThread && depth == 0 {
		c := w.channelJSON(th)
		out.Thread = &c
	}
	return out
}
