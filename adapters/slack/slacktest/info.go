package slacktest

import (
	"encoding/json"
	"strings"
)

// Read-only and assistant methods: auth-free lookups the adapter makes for
// names and thread history, and the AI-app thread decorations.

func (s *Server) usersInfo(r apiRequest) result {
	u, ok := s.st.users[r.params.Get("user")]
	if !ok {
		return errResult("user_not_found")
	}
	return result{"user": s.userJSON(u)}
}

func (s *Server) userJSON(u *User) map[string]any {
	return map[string]any{
		"id": u.ID, "team_id": s.opts.teamID, "name": u.Name, "real_name": u.Name, "is_bot": u.IsBot, "tz": u.Zone,
		"profile": map[string]any{"display_name": u.Name, "real_name": u.Name, "team": s.opts.teamID},
	}
}

func (s *Server) conversationsInfo(r apiRequest) result {
	ch, ok := s.st.channels[r.params.Get("channel")]
	if !ok {
		return errResult("channel_not_found")
	}
	return result{"channel": map[string]any{
		"id": ch.ID, "name": ch.Name,
		"is_channel": ch.Kind == Public, "is_group": ch.Kind == Private,
		"is_im": ch.Kind == IM, "is_mpim": ch.Kind == MPIM,
		"is_private": ch.Kind != Public, "is_member": s.st.members[ch.ID][s.opts.botUserID],
	}}
}

func (s *Server) conversationsReplies(r apiRequest) result {
	channel, ts := r.params.Get("channel"), r.params.Get("ts")
	if _, ok := s.st.channels[channel]; !ok {
		return errResult("channel_not_found")
	}
	root := s.st.find(channel, ts)
	if root == nil {
		return errResult("thread_not_found")
	}
	// The root comes first whatever the bounds, as on Slack.
	msgs := s.threadLocked(channel, ts)
	res := s.listing(r, msgs[1:], false)
	res["messages"] = append([]map[string]any{s.messageJSON(&msgs[0])}, res["messages"].([]map[string]any)...)
	return res
}

// assistantThread validates the channel_id/thread_ts pair of assistant.threads.*.
func (s *Server) assistantThread(r apiRequest) (string, result) {
	channel, ts := r.params.Get("channel_id"), r.params.Get("thread_ts")
	if _, ok := s.st.channels[channel]; !ok {
		return "", errResult("channel_not_found")
	}
	if ts == "" {
		return "", errResult("invalid_arguments")
	}
	return channel + "/" + ts, nil
}

func (s *Server) assistantSetStatus(r apiRequest) result {
	key, res := s.assistantThread(r)
	if res != nil {
		return res
	}
	if lm := r.params.Get("loading_messages"); lm != "" && len(strings.Split(lm, ",")) > 10 {
		return errResult("invalid_arguments")
	}
	if st := r.params.Get("status"); st != "" {
		s.st.status[key] = st
	} else {
		delete(s.st.status, key)
	}
	return result{}
}

func (s *Server) assistantSetSuggestedPrompts(r apiRequest) result {
	key, res := s.assistantThread(r)
	if res != nil {
		return res
	}
	if !json.Valid([]byte(r.params.Get("prompts"))) {
		return errResult("invalid_arguments")
	}
	s.st.prompts[key] = json.RawMessage(r.params.Get("prompts"))
	return result{}
}

func (s *Server) assistantSetTitle(r apiRequest) result {
	key, res := s.assistantThread(r)
	if res != nil {
		return res
	}
	s.st.titles[key] = r.params.Get("title")
	return result{}
}
