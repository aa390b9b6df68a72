package discordtest

import (
	"encoding/hex"
	"net/http"
	"time"
)

// Interaction types and callback types (Discord's numbering).
const (
	interactionCommand   = 2
	interactionComponent = 3

	callbackMessage         = 4
	callbackDeferredMessage = 5
	callbackDeferredUpdate  = 6
	callbackUpdateMessage   = 7
	callbackModal           = 9

	flagEphemeral = 1 << 6
	flagLoading   = 1 << 7
)

// InteractionReply is one call the bot made about an interaction.
type InteractionReply struct {
	InteractionID string
	Kind          string // "callback", "original-edit", "followup", "followup-edit"
	Type          int    // callback type (4, 5, 6, 7, 9); 0 for the others
	Content       string
	Flags         int // 64 = ephemeral
	Buttons       [][]Button
	Status        int
}

type interaction struct {
	id, token string
	typ       int
	channelID string
	guildID   string
	userID    string
	messageID string // components: the message clicked
	created   time.Time
	sent      time.Time // first written to a gateway connection
	acked     bool
	original  string // @original's message id, once there is one
	followups []string
}

// since is when the interaction reached the client (or was created, if it
// never did): Discord's deadlines run from delivery.
func (in *interaction) since() time.Time {
	if in.sent.IsZero() {
		return in.created
	}
	return in.sent
}

func (s *Server) newInteractionLocked(typ int, c *channel, userID string) *interaction {
	var b [32]byte
	for i := range b {
		b[i] = byte(s.rng.UintN(256))
	}
	in := &interaction{id: s.w.snowflake(s.now()), token: "aW50ZXJhY3Rpb246" + hex.EncodeToString(b[:]), typ: typ,
		channelID: c.ID, guildID: c.GuildID, userID: userID, created: s.now()}
	s.w.interactions[in.id] = in
	s.w.tokens[in.token] = in
	return in
}

func unknownInteraction() *apiError {
	return errBody(http.StatusNotFound, codeUnknownInteraction, "Unknown interaction")
}

func unknownWebhook() *apiError {
	return errBody(http.StatusNotFound, codeUnknownWebhook, "Unknown Webhook")
}

func (s *Server) record(rec InteractionReply, rep reply) reply {
	rec.Status = rep.status
	s.w.replies[rec.InteractionID] = append(s.w.replies[rec.InteractionID], rec)
	return rep
}

func (rec *InteractionReply) fill(b *messageBody, buttons [][]Button) {
	rec.Content, rec.Flags, rec.Buttons = b.content(), b.flags(), buttons
}

// interactionCallback answers POST /interactions/{id}/{token}/callback.
func (s *Server) interactionCallback(r *request) reply {
	in, found := s.w.interactions[r.params[0]]
	if !found || in.token != r.params[1] {
		return fail(unknownInteraction())
	}
	rec := InteractionReply{InteractionID: in.id, Kind: "callback"}
	if s.now().Sub(in.since()) > s.opts.interactionWindow {
		return s.record(rec, fail(unknownInteraction()))
	}
	if in.acked {
		return s.record(rec, fail(errBody(http.StatusBadRequest, codeAlreadyAcknowledged, "Interaction has already been acknowledged.")))
	}
	var b struct {
		Type int          `json:"type"`
		Data *messageBody `json:"data"`
	}
	if e := r.decode(&b); e != nil {
		return s.record(rec, fail(e))
	}
	rec.Type = b.Type
	data := b.Data
	if data == nil {
		data = &messageBody{}
	}
	buttons, e := data.check()
	if e != nil {
		return s.record(rec, fail(e))
	}
	rec.fill(data, buttons)
	if e := s.acknowledgeLocked(in, b.Type, data); e != nil {
		return s.record(rec, fail(e))
	}
	in.acked = true
	return s.record(rec, noContent())
}

func (s *Server) acknowledgeLocked(in *interaction, typ int, data *messageBody) *apiError {
	c := s.w.channels[in.channelID]
	ephemeralFor := ""
	if data.flags()&flagEphemeral != 0 {
		ephemeralFor = in.userID
	}
	switch typ {
	case callbackMessage:
		m, e := s.newBotMessageLocked(c, data, ephemeralFor, s.w.botID)
		if e != nil {
			return e
		}
		in.original = m.id
		s.noteEphemeral(m)
	case callbackDeferredMessage:
		m := &message{id: s.w.snowflake(s.now()), channelID: c.ID, guildID: c.GuildID, authorID: s.w.botID, bot: true,
			flags: flagLoading | data.flags()&flagEphemeral, created: s.now(), ephemeralFor: ephemeralFor, webhookID: s.w.botID}
		s.w.addMessage(m)
		if ephemeralFor == "" {
			s.emitMessageLocked("MESSAGE_CREATE", m)
		}
		in.original = m.id
	case callbackDeferredUpdate, callbackUpdateMessage:
		if in.typ != interactionComponent {
			errs := formErrors{}
			errs.add("type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type is only valid for component interactions")
			return errs.apiError()
		}
		m, found := s.w.channelMessage(in.channelID, in.messageID)
		if !found {
			return unknownMessage()
		}
		if typ == callbackUpdateMessage && (data.Content != nil || data.Components != nil) {
			if e := s.editBotMessageLocked(m, data); e != nil {
				return e
			}
		}
		in.original = m.id
	case callbackModal:
	default:
		errs := formErrors{}
		errs.add("type", "BASE_TYPE_CHOICES", "Value must be one of {4, 5, 6, 7, 9}.")
		return errs.apiError()
	}
	return nil
}

// noteEphemeral records the text an ephemeral message shows its user.
func (s *Server) noteEphemeral(m *message) {
	if m.ephemeralFor != "" && m.content != "" {
		s.w.ephemeral[m.ephemeralFor] = append(s.w.ephemeral[m.ephemeralFor], m.content)
	}
}

// webhookInteraction resolves /webhooks/{app}/{token}: follow-ups and edits
// need a prior callback and a token younger than its lifetime.
func (s *Server) webhookInteraction(r *request) (*interaction, *apiError) {
	in, found := s.w.tokens[r.params[1]]
	if !found || r.params[0] != s.w.botID {
		return nil, unknownWebhook()
	}
	if !in.acked || s.now().Sub(in.since()) > s.opts.tokenLifetime {
		return in, unknownWebhook()
	}
	return in, nil
}

func (s *Server) createFollowup(r *request) reply {
	in, e := s.webhookInteraction(r)
	if in == nil {
		return fail(e)
	}
	rec := InteractionReply{InteractionID: in.id, Kind: "followup"}
	if e != nil {
		return s.record(rec, fail(e))
	}
	var b messageBody
	if e := r.decode(&b); e != nil {
		return s.record(rec, fail(e))
	}
	ephemeralFor := ""
	if b.flags()&flagEphemeral != 0 {
		ephemeralFor = in.userID
	}
	m, e := s.newBotMessageLocked(s.w.channels[in.channelID], &b, ephemeralFor, s.w.botID)
	if e != nil {
		rec.Content, rec.Flags = b.content(), b.flags()
		return s.record(rec, fail(e))
	}
	in.followups = append(in.followups, m.id)
	s.noteEphemeral(m)
	rec.Content, rec.Flags, rec.Buttons = m.content, m.flags, m.buttons
	return s.record(rec, okJSON(s.w.messageJSON(m, 0)))
}

func (s *Server) editOriginal(r *request) reply {
	in, e := s.webhookInteraction(r)
	if in == nil {
		return fail(e)
	}
	return s.editInteractionMessage(in, r, "original-edit", in.original, e)
}

func (s *Server) editFollowup(r *request) reply {
	in, e := s.webhookInteraction(r)
	if in == nil {
		return fail(e)
	}
	id := r.params[2]
	if id != in.original && !containsID(in.followups, id) {
		id = ""
	}
	return s.editInteractionMessage(in, r, "followup-edit", id, e)
}

func (s *Server) editInteractionMessage(in *interaction, r *request, kind, id string, e *apiError) reply {
	rec := InteractionReply{InteractionID: in.id, Kind: kind}
	if e != nil {
		return s.record(rec, fail(e))
	}
	m, found := s.w.messages[id]
	if !found || m.deleted {
		return s.record(rec, fail(unknownMessage()))
	}
	var b messageBody
	if e := r.decode(&b); e != nil {
		return s.record(rec, fail(e))
	}
	flags := m.flags
	m.flags &^= flagLoading // the first edit of a deferred response ends "thinking"
	if e := s.editBotMessageLocked(m, &b); e != nil {
		m.flags = flags
		rec.Content, rec.Flags = b.content(), b.flags()
		return s.record(rec, fail(e))
	}
	if b.Content != nil {
		s.noteEphemeral(m)
	}
	rec.Content, rec.Flags, rec.Buttons = m.content, m.flags, m.buttons
	return s.record(rec, okJSON(s.w.messageJSON(m, 0)))
}
