package slacktest

import (
	"encoding/json"
	"strings"
)

// Helpers that make simulated people act. Each builds the payload real Slack
// would deliver, so slack-go parses it into the same types as in production.

// eventCallbackLocked wraps an inner event in the Events API outer envelope.
func (s *Server) eventCallbackLocked(inner map[string]any) string {
	o := s.opts
	return s.enqueueLocked("events_api", map[string]any{
		"token":      "slacktest-verification-token",
		"team_id":    o.teamID,
		"api_app_id": o.appID,
		"event":      inner,
		"type":       "event_callback",
		"event_id":   s.st.nextID("Ev"),
		"event_time": 1700000000 + s.st.tsSeq/1000000,
		"authorizations": []map[string]any{{
			"team_id": o.teamID, "user_id": o.botUserID, "is_bot": true, "is_enterprise_install": false,
		}},
		"is_ext_shared_channel": false,
		"event_context":         "4-slacktest",
	}, false)
}

// PostUserMessage makes user write text in channel (in the thread threadTS,
// if not empty) and delivers the message event; when the text mentions the
// bot as <@BOTUSERID> it also delivers an app_mention event with the same ts
// and its own event_id, as Slack does. Unknown users and channels are added.
// It returns the message's ts.
func (s *Server) PostUserMessage(channel, user, text, threadTS string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.postUserLocked(channel, user, text, threadTS, nil)
}

// postUserLocked posts a person's message, with the files' objects when
// it shares files (subtype file_share), and delivers its events.
func (s *Server) postUserLocked(channel, user, text, threadTS string, files []map[string]any) string {
	ch := s.st.channel(channel)
	s.st.user(user)
	s.st.join(ch.ID, user)
	m := &Message{Channel: ch.ID, TS: s.st.nextTS(), User: user, Text: text}
	m.ThreadTS = s.st.threadRoot(ch.ID, threadTS)
	s.st.addMessage(m)
	clientMsgID := s.st.nextID("cm-")
	ev := map[string]any{
		"type": "message", "channel": ch.ID, "user": user, "text": text, "ts": m.TS, "event_ts": m.TS,
		"channel_type": ch.Kind.eventChannelType(), "team": s.opts.teamID, "client_msg_id": clientMsgID,
	}
	if len(files) > 0 {
		ev["subtype"], ev["files"], ev["upload"], ev["display_as_bot"] = "file_share", files, false, false
	}
	if m.ThreadTS != "" {
		ev["thread_ts"] = m.ThreadTS
	}
	s.eventCallbackLocked(ev)
	if strings.Contains(text, "<@"+s.opts.botUserID+">") {
		mention := map[string]any{
			"type": "app_mention", "channel": ch.ID, "user": user, "text": text, "ts": m.TS, "event_ts": m.TS,
			"team": s.opts.teamID, "client_msg_id": clientMsgID,
		}
		if len(files) > 0 {
			mention["files"], mention["upload"] = files, false
		}
		if m.ThreadTS != "" {
			mention["thread_ts"] = m.ThreadTS
		}
		s.eventCallbackLocked(mention)
	}
	return m.TS
}

// PostBotMessage makes another bot (botID, e.g. an integration) post text;
// the event has subtype bot_message and bot_id set. It returns the ts.
func (s *Server) PostBotMessage(channel, botID, username, text, threadTS string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.st.channel(channel)
	m := &Message{Channel: ch.ID, TS: s.st.nextTS(), BotID: botID, Text: text}
	m.ThreadTS = s.st.threadRoot(ch.ID, threadTS)
	s.st.addMessage(m)
	ev := map[string]any{
		"type": "message", "subtype": "bot_message", "channel": ch.ID, "bot_id": botID, "username": username,
		"text": text, "ts": m.TS, "event_ts": m.TS, "channel_type": ch.Kind.eventChannelType(),
	}
	if m.ThreadTS != "" {
		ev["thread_ts"] = m.ThreadTS
	}
	s.eventCallbackLocked(ev)
	return m.TS
}

// echoLocked delivers the message event Slack sends for the app's own post.
func (s *Server) echoLocked(m *Message) {
	ch := s.st.channel(m.Channel)
	ev := map[string]any{
		"type": "message", "channel": m.Channel, "user": m.User, "bot_id": m.BotID, "app_id": s.opts.appID,
		"text": m.Visible(), "ts": m.TS, "event_ts": m.TS, "channel_type": ch.Kind.eventChannelType(),
		"team": s.opts.teamID,
	}
	if m.ThreadTS != "" {
		ev["thread_ts"] = m.ThreadTS
	}
	s.eventCallbackLocked(ev)
}

// EditUserMessage changes the text of a message in place and delivers the
// message_changed event. It reports false if there is no such message.
func (s *Server) EditUserMessage(channel, ts, newText string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.find(channel, ts)
	if m == nil {
		return false
	}
	prev := s.messageJSON(m)
	m.Text, m.MarkdownText, m.Edited = newText, "", true
	evTS := s.st.nextTS()
	s.eventCallbackLocked(map[string]any{
		"type": "message", "subtype": "message_changed", "hidden": true, "channel": channel,
		"ts": evTS, "event_ts": evTS, "channel_type": s.st.channel(channel).Kind.eventChannelType(),
		"message": s.messageJSON(m), "previous_message": prev,
	})
	return true
}

// DeleteUserMessage deletes a message and delivers the message_deleted
// event. It reports false if there is no such message.
func (s *Server) DeleteUserMessage(channel, ts string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.find(channel, ts)
	if m == nil {
		return false
	}
	prev := s.messageJSON(m)
	m.Deleted = true
	evTS := s.st.nextTS()
	s.eventCallbackLocked(map[string]any{
		"type": "message", "subtype": "message_deleted", "hidden": true, "channel": channel,
		"ts": evTS, "event_ts": evTS, "deleted_ts": ts, "channel_type": s.st.channel(channel).Kind.eventChannelType(),
		"previous_message": prev,
	})
	return true
}

// blockIDFor finds the block_id of the element with actionID in blocks.
func blockIDFor(blocks json.RawMessage, actionID string) string {
	var bs []struct {
		BlockID  string `json:"block_id"`
		Elements []struct {
			ActionID string `json:"action_id"`
		} `json:"elements"`
		Accessory *struct {
			ActionID string `json:"action_id"`
		} `json:"accessory"`
	}
	if json.Unmarshal(blocks, &bs) != nil {
		return ""
	}
	for _, b := range bs {
		if b.Accessory != nil && b.Accessory.ActionID == actionID {
			return b.BlockID
		}
		for _, e := range b.Elements {
			if e.ActionID == actionID {
				return b.BlockID
			}
		}
	}
	return ""
}

// Click makes user press the button actionID (carrying value) on the message
// messageTS, delivering an interactive block_actions envelope with a
// response_url served by the fake. It returns the envelope id.
func (s *Server) Click(channel, messageTS, actionID, value, user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.st.channel(channel)
	u := s.st.user(user)
	s.st.join(ch.ID, u.ID)
	var blockID, threadTS string
	var msg map[string]any
	if m := s.st.find(channel, messageTS); m != nil {
		blockID, threadTS, msg = blockIDFor(m.Blocks, actionID), m.ThreadTS, s.messageJSON(m)
	}
	container := map[string]any{"type": "message", "message_ts": messageTS, "channel_id": ch.ID, "is_ephemeral": false}
	if threadTS != "" {
		container["thread_ts"] = threadTS
	}
	actionTS := s.st.nextTS()
	payload := map[string]any{
		"type":       "block_actions",
		"team":       map[string]any{"id": s.opts.teamID, "domain": s.opts.teamDomain},
		"user":       map[string]any{"id": u.ID, "username": u.Name, "name": u.Name, "team_id": s.opts.teamID},
		"api_app_id": s.opts.appID,
		"token":      "slacktest-verification-token",
		"container":  container,
		"trigger_id": s.st.nextID("trigger-"),
		"channel":    map[string]any{"id": ch.ID, "name": ch.Name},
		"response_url": s.newResponseURLLocked(responseTarget{
			channel: ch.ID, user: u.ID, messageTS: messageTS, threadTS: threadTS,
		}),
		"actions": []map[string]any{{
			"type": "button", "action_id": actionID, "block_id": blockID, "value": value, "action_ts": actionTS,
		}},
	}
	if msg != nil {
		payload["message"] = msg
	}
	return s.enqueueLocked("interactive", payload, false)
}

// SlashCommand makes user run command (e.g. "/parley") with text in channel,
// delivering a slash_commands envelope. The payload of the client's ack is
// shown like Slack shows it (ephemeral unless response_type is in_channel);
// later output can go to the response_url. It returns the envelope id.
func (s *Server) SlashCommand(command, text, user, channel string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.st.channel(channel)
	u := s.st.user(user)
	s.st.join(ch.ID, u.ID)
	t := responseTarget{channel: ch.ID, user: u.ID}
	payload := map[string]any{
		"token": "slacktest-verification-token", "team_id": s.opts.teamID, "team_domain": s.opts.teamDomain,
		"channel_id": ch.ID, "channel_name": ch.Name, "user_id": u.ID, "user_name": u.Name,
		"command": command, "text": text, "api_app_id": s.opts.appID,
		"response_url": s.newResponseURLLocked(t), "trigger_id": s.st.nextID("trigger-"),
	}
	id := s.enqueueLocked("slash_commands", payload, true)
	s.sock.slash[id] = t
	return id
}

// AssistantThreadStarted delivers assistant_thread_started for a new AI-app
// thread user opened in the DM channel. It returns the envelope id.
func (s *Server) AssistantThreadStarted(channel, threadTS, user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.channel(channel)
	s.st.user(user)
	s.st.join(channel, user)
	return s.eventCallbackLocked(map[string]any{
		"type": "assistant_thread_started",
		"assistant_thread": map[string]any{
			"user_id": user, "channel_id": channel, "thread_ts": threadTS,
			"context": map[string]any{"channel_id": "", "team_id": s.opts.teamID, "enterprise_id": ""},
		},
		"event_ts": s.st.nextTS(),
	})
}
