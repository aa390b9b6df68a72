package discordtest

import (
	"net/http"
	"slices"
	"unicode/utf8"
)

func (s *Server) getGateway(*request) reply {
	return okJSON(map[string]string{"url": s.gatewayURL()})
}

func (s *Server) getGatewayBot(*request) reply {
	return okJSON(map[string]any{
		"url": s.gatewayURL(), "shards": max(1, s.opts.requiredShards),
		"session_start_limit": map[string]int{"total": 1000, "remaining": 1000 - s.gw.totalIdentifies(), "reset_after": 86400000, "max_concurrency": 1},
	})
}

func (s *Server) getMe(*request) reply {
	u := s.w.userJSON(s.w.botID)
	return okJSON(map[string]any{"id": u.ID, "username": u.Username, "discriminator": u.Discriminator,
		"global_name": nil, "avatar": nil, "bot": true, "verified": true, "mfa_enabled": false, "flags": 0})
}

func (s *Server) getApplication(*request) reply {
	return okJSON(map[string]any{"id": s.w.botID, "name": s.w.botName, "flags": s.opts.appFlags,
		"bot_public": true, "bot_require_code_grant": false, "description": "", "verify_key": "",
		"bot": s.w.userJSON(s.w.botID)})
}

func (s *Server) getChannel(r *request) reply {
	c, found := s.w.channels[r.params[0]]
	if !found {
		return fail(unknownChannel())
	}
	return okJSON(s.w.channelJSON(c))
}

// createDM answers POST /users/@me/channels: the (stable) DM channel with
// recipient_id.
func (s *Server) createDM(r *request) reply {
	var b struct {
		RecipientID string `json:"recipient_id"`
	}
	if e := r.decode(&b); e != nil {
		return fail(e)
	}
	if _, known := s.w.users[b.RecipientID]; !known || b.RecipientID == s.w.botID {
		return fail(errBody(http.StatusNotFound, codeUnknownUser, "Unknown User"))
	}
	return okJSON(s.w.channelJSON(s.w.dmChannel(b.RecipientID, s.now())))
}

// startThread answers POST /channels/{id}/messages/{id}/threads: a public
// thread (type 11) whose id is the starter message's id.
func (s *Server) startThread(r *request) reply {
	parent, found := s.w.channels[r.params[0]]
	if !found {
		return fail(unknownChannel())
	}
	if parent.Type != channelText {
		return fail(errBody(http.StatusBadRequest, 50024, "Cannot execute action on this channel type"))
	}
	m, found := s.w.channelMessage(parent.ID, r.params[1])
	if !found {
		return fail(unknownMessage())
	}
	if parent.forbidThreads {
		return fail(errBody(http.StatusForbidden, codeMissingPermissions, "Missing Permissions"))
	}
	if _, exists := s.w.channels[m.id]; exists {
		return fail(errBody(http.StatusBadRequest, codeThreadAlreadyCreated, "A thread has already been created for this message"))
	}
	var b struct {
		Name                string `json:"name"`
		AutoArchiveDuration int    `json:"auto_archive_duration"`
	}
	if e := r.decode(&b); e != nil {
		return fail(e)
	}
	errs := formErrors{}
	switch n := utf8.RuneCountInString(b.Name); {
	case n == 0:
		errs.add("name", "BASE_TYPE_REQUIRED", "This field is required")
	case n > 100:
		tooLong(errs, "name", 100)
	}
	if b.AutoArchiveDuration == 0 {
		b.AutoArchiveDuration = 4320
	} else if !slices.Contains([]int{60, 1440, 4320, 10080}, b.AutoArchiveDuration) {
		errs.add("auto_archive_duration", "BASE_TYPE_CHOICES", "Value must be one of {60, 1440, 4320, 10080}.")
	}
	if e := errs.apiError(); e != nil {
		return fail(e)
	}
	th := &channel{Channel: Channel{ID: m.id, GuildID: parent.GuildID, ParentID: parent.ID, Name: b.Name, Type: channelThread},
		archiveAfter: b.AutoArchiveDuration, created: s.now()}
	s.w.addChannel(th)
	created := s.w.channelJSON(th)
	created.NewlyCreated = true
	s.emitLocked(event{t: "THREAD_CREATE", d: created, intent: intentGuilds, id: th.ID, guild: th.GuildID})
	return reply{status: http.StatusCreated, body: s.w.channelJSON(th)}
}
