package slacktest

// Native streaming (chat.startStream / appendStream / stopStream), with the
// preconditions Slack documents: a stream must reply in a thread, and outside
// DMs it must name the recipient user and team.

// streamErrLocked answers the switch set by SetStreamingError.
func (s *Server) streamErrLocked() (result, bool) {
	switch s.streamErr {
	case "":
		return nil, false
	case "missing_scope":
		return result{"ok": false, "error": "missing_scope", "needed": "chat:write", "provided": "commands"}, true
	default:
		return errResult(s.streamErr), true
	}
}

func (s *Server) chatStartStream(r apiRequest) result {
	if res, failed := s.streamErrLocked(); failed {
		return res
	}
	ch, ok := s.st.channels[r.params.Get("channel")]
	if !ok {
		return errResult("channel_not_found")
	}
	threadTS := r.params.Get("thread_ts")
	if threadTS == "" {
		return errResult("invalid_arguments")
	}
	if ch.Kind != IM {
		if r.params.Get("recipient_user_id") == "" {
			return errResult("missing_recipient_user_id")
		}
		if r.params.Get("recipient_team_id") == "" {
			return errResult("missing_recipient_team_id")
		}
	}
	c, errCode := readContent(r)
	if errCode != "" {
		return errResult(errCode)
	}
	m := &Message{
		Channel: ch.ID, TS: s.st.nextTS(), User: s.opts.botUserID, BotID: s.opts.botID,
		MarkdownText: c.markdown, Streaming: true, Streamed: true,
	}
	m.ThreadTS = s.st.threadRoot(ch.ID, threadTS)
	s.st.addMessage(m)
	delete(s.st.status, ch.ID+"/"+m.ThreadTS)
	return result{"channel": ch.ID, "ts": m.TS}
}

// streamTarget finds the message an append/stop call names.
func (s *Server) streamTarget(r apiRequest) (*Message, result) {
	if res, failed := s.streamErrLocked(); failed {
		return nil, res
	}
	channel := r.params.Get("channel")
	if _, ok := s.st.channels[channel]; !ok {
		return nil, errResult("channel_not_found")
	}
	m := s.st.find(channel, r.params.Get("ts"))
	switch {
	case m == nil:
		return nil, errResult("message_not_found")
	case m.User != s.opts.botUserID:
		return nil, errResult("message_not_owned_by_app")
	case !m.Streaming:
		return nil, errResult("message_not_in_streaming_state")
	}
	return m, nil
}

func (s *Server) chatAppendStream(r apiRequest) result {
	m, res := s.streamTarget(r)
	if m == nil {
		return res
	}
	c, errCode := readContent(r)
	if errCode != "" {
		return errResult(errCode)
	}
	if c.markdown == "" && !r.params.Has("chunks") {
		return errResult("invalid_arguments")
	}
	m.MarkdownText += c.markdown
	return result{"channel": m.Channel, "ts": m.TS}
}

func (s *Server) chatStopStream(r apiRequest) result {
	m, res := s.streamTarget(r)
	if m == nil {
		return res
	}
	c, errCode := readContent(r)
	if errCode != "" {
		return errResult(errCode)
	}
	m.MarkdownText += c.markdown
	if c.hasBlocks {
		m.Blocks = c.blocks
	}
	m.Streaming = false
	return result{"channel": m.Channel, "ts": m.TS, "message": s.messageJSON(m)}
}
