package discordtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxContent is Discord's content limit. The fake counts Unicode code points
// (runes), as Discord's server does.
const maxContent = 2000

// messageBody is the JSON of a message create/edit, an interaction response's
// data and a webhook execute/edit. Pointers tell absent from empty.
type messageBody struct {
	Content          *string           `json:"content"`
	Components       json.RawMessage   `json:"components"`
	Embeds           []json.RawMessage `json:"embeds"`
	StickerIDs       []string          `json:"sticker_ids"`
	AllowedMentions  *AllowedMentions  `json:"allowed_mentions"`
	MessageReference *struct {
		MessageID       string `json:"message_id"`
		FailIfNotExists *bool  `json:"fail_if_not_exists"`
	} `json:"message_reference"`
	Flags        *int            `json:"flags"`
	Nonce        json.RawMessage `json:"nonce"`
	EnforceNonce bool            `json:"enforce_nonce"`
}

func (b *messageBody) content() string {
	if b.Content == nil {
		return ""
	}
	return *b.Content
}

func (b *messageBody) flags() int {
	if b.Flags == nil {
		return 0
	}
	return *b.Flags
}

func hasComponents(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null" && string(raw) != "[]"
}

// check validates the fields Discord validates and returns the parsed buttons.
func (b *messageBody) check() ([][]Button, *apiError) {
	errs := formErrors{}
	if b.Content != nil && utf8.RuneCountInString(*b.Content) > maxContent {
		tooLong(errs, "content", maxContent)
	}
	buttons, cerrs := parseComponents(b.Components, b.flags())
	errs.merge(cerrs)
	errs.merge(b.AllowedMentions.validate())
	if len(b.Embeds) > 10 {
		tooLong(errs, "embeds", 10)
	}
	if e := errs.apiError(); e != nil {
		return nil, e
	}
	return buttons, nil
}

func (b *messageBody) empty() bool {
	return b.content() == "" && !hasComponents(b.Components) && len(b.Embeds) == 0 && len(b.StickerIDs) == 0
}

func (w *world) known(id string) bool {
	_, ok := w.users[id]
	return ok
}

// newBotMessage validates b and stores the bot's message in c (or, with
// ephemeralFor, a message only that user sees). It dispatches MESSAGE_CREATE
// for channel messages, as Discord echoes the bot's own messages.
func (s *Server) newBotMessageLocked(c *channel, b *messageBody, ephemeralFor, webhookID string) (*message, *apiError) {
	buttons, e := b.check()
	if e != nil {
		return nil, e
	}
	if b.empty() {
		return nil, emptyMessage()
	}
	m := &message{
		id: s.w.snowflake(s.now()), channelID: c.ID, guildID: c.GuildID, authorID: s.w.botID, bot: true,
		content: b.content(), components: normalizedComponents(b.Components), buttons: buttons,
		flags: b.flags(), created: s.now(), ephemeralFor: ephemeralFor, webhookID: webhookID,
	}
	replied := ""
	if ref := b.MessageReference; ref != nil && ref.MessageID != "" {
		target, found := s.w.channelMessage(c.ID, ref.MessageID)
		switch {
		case found:
			m.reference, replied = target.id, target.authorID
		case ref.FailIfNotExists == nil || *ref.FailIfNotExists:
			errs := formErrors{}
			errs.add("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
			return nil, errs.apiError()
		}
	}
	s.applyPings(m, b.AllowedMentions, replied)
	s.w.addMessage(m)
	if ephemeralFor == "" {
		s.emitMessageLocked("MESSAGE_CREATE", m)
	}
	return m, nil
}

func normalizedComponents(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// applyPings evaluates the message's content under am and records who it
// notified; Pings accumulate over edits.
func (s *Server) applyPings(m *message, am *AllowedMentions, repliedAuthor string) {
	m.allowed = am.clone()
	r := computePings(m.content, am, m.authorID, repliedAuthor, s.w.known)
	m.pings = mergePings(m.pings, r.pings)
	m.mentions, m.mentionRoles, m.mentionEveryone = r.users, r.roles, r.everyone
}

// editBotMessageLocked applies an edit to one of the bot's messages. As on
// Discord, an edit without allowed_mentions re-parses content with the
// default (ping everything), whatever the original request allowed.
func (s *Server) editBotMessageLocked(m *message, b *messageBody) *apiError {
	buttons, e := b.check()
	if e != nil {
		return e
	}
	content, components := m.content, m.components
	if b.Content != nil {
		content = *b.Content
	}
	if b.Components != nil {
		components = normalizedComponents(b.Components)
	}
	if content == "" && !hasComponents(components) && len(b.Embeds) == 0 {
		return emptyMessage()
	}
	m.content, m.components = content, components
	if b.Components != nil {
		m.buttons = buttons
	}
	if b.Flags != nil {
		m.flags = *b.Flags
	}
	if b.Content != nil {
		s.applyPings(m, b.AllowedMentions, "")
	}
	m.edits++
	m.edited = s.now()
	if m.ephemeralFor == "" {
		s.emitMessageLocked("MESSAGE_UPDATE", m)
	}
	return nil
}

func (s *Server) createMessage(r *request) reply {
	c, ok := s.w.channels[r.params[0]]
	if !ok {
		return fail(unknownChannel())
	}
	var b messageBody
	if e := r.decode(&b); e != nil {
		return fail(e)
	}
	nonce, e := readNonce(b.Nonce)
	if e != nil {
		return fail(e)
	}
	if b.EnforceNonce && nonce != "" {
		if m, ok := s.enforcedNonceLocked(s.w.botID, nonce); ok {
			s.nonceReturns++
			return okJSON(s.w.messageJSON(m, 0))
		}
	}
	m, e := s.newBotMessageLocked(c, &b, "", "")
	if e != nil {
		return fail(e)
	}
	m.nonce = nonce
	if b.EnforceNonce && nonce != "" {
		s.rememberNonceLocked(m, nonce)
	}
	return okJSON(s.w.messageJSON(m, 0))
}

func (s *Server) editMessage(r *request) reply {
	if _, ok := s.w.channels[r.params[0]]; !ok {
		return fail(unknownChannel())
	}
	m, ok := s.w.channelMessage(r.params[0], r.params[1])
	if !ok {
		return fail(unknownMessage())
	}
	if m.authorID != s.w.botID {
		return fail(errBody(http.StatusForbidden, codeCannotEditOthers, "Cannot edit a message authored by another user"))
	}
	var b messageBody
	if e := r.decode(&b); e != nil {
		return fail(e)
	}
	if e := s.editBotMessageLocked(m, &b); e != nil {
		return fail(e)
	}
	return okJSON(s.w.messageJSON(m, 0))
}

func (s *Server) deleteMessage(r *request) reply {
	c, ok := s.w.channels[r.params[0]]
	if !ok {
		return fail(unknownChannel())
	}
	m, ok := s.w.channelMessage(c.ID, r.params[1])
	if !ok {
		return fail(unknownMessage())
	}
	if m.authorID != s.w.botID {
		if c.Type == channelDM {
			return fail(errBody(http.StatusForbidden, 50003, "Cannot execute action on a DM channel"))
		}
		return fail(errBody(http.StatusForbidden, codeMissingPermissions, "Missing Permissions"))
	}
	m.deleted = true
	s.w.order[c.ID] = slices.DeleteFunc(s.w.order[c.ID], func(id string) bool { return id == m.id })
	s.emitLocked(event{t: "MESSAGE_DELETE", d: map[string]string{"id": m.id, "channel_id": m.channelID, "guild_id": m.guildID},
		intent: messageIntent(c), id: m.id, guild: m.guildID})
	return noContent()
}

func (s *Server) getMessage(r *request) reply {
	if _, ok := s.w.channels[r.params[0]]; !ok {
		return fail(unknownChannel())
	}
	m, ok := s.w.channelMessage(r.params[0], r.params[1])
	if !ok {
		return fail(unknownMessage())
	}
	return okJSON(s.w.messageJSON(m, 0))
}

// listMessages answers GET /channels/{id}/messages: newest first, limit
// 1–100 (default 50), before/after/around by id.
func (s *Server) listMessages(r *request) reply {
	c, ok := s.w.channels[r.params[0]]
	if !ok {
		return fail(unknownChannel())
	}
	limit := 50
	if v := r.query.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			errs := formErrors{}
			errs.add("limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100.")
			return fail(errs.apiError())
		}
		limit = n
	}
	ids := s.w.order[c.ID] // oldest first; snowflakes grow with time
	var pick []string
	switch before, after, around := r.query.Get("before"), r.query.Get("after"), r.query.Get("around"); {
	case after != "":
		for _, id := range ids {
			if idLess(after, id) && len(pick) < limit {
				pick = append(pick, id)
			}
		}
	case before != "":
		for _, id := range ids {
			if idLess(id, before) {
				pick = append(pick, id)
			}
		}
		pick = pick[max(0, len(pick)-limit):]
	case around != "":
		i := slices.IndexFunc(ids, func(id string) bool { return !idLess(id, around) })
		if i < 0 {
			i = len(ids)
		}
		lo := max(0, i-limit/2)
		pick = ids[lo:min(len(ids), lo+limit)]
	default:
		pick = ids[max(0, len(ids)-limit):]
	}
	out := make([]wireMessage, 0, len(pick))
	for i := len(pick) - 1; i >= 0; i-- {
		out = append(out, s.w.messageJSON(s.w.messages[pick[i]], 0))
	}
	return okJSON(out)
}

// idLess compares snowflakes numerically.
func idLess(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return a < b
	}
	return x < y
}

func (s *Server) typingStart(r *request) reply {
	if _, ok := s.w.channels[r.params[0]]; !ok {
		return fail(unknownChannel())
	}
	s.typing[r.params[0]]++
	return noContent()
}
