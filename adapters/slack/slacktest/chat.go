package slacktest

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// Slack's length limits (docs.slack.dev chat.postMessage / chat.update).
const (
	maxPostText     = 40000 // longer text is truncated by chat.postMessage
	maxUpdateText   = 4000  // chat.update fails with msg_too_long past this
	maxMarkdownText = 12000 // markdown_text, per call
	maxBlocks       = 50
)

// content is the text/markdown_text/blocks triple of a chat.* call.
type content struct {
	text, markdown string
	hasText, hasMD bool
	blocks         json.RawMessage
	hasBlocks      bool
}

// readContent validates the message body fields the way Slack does.
func readContent(r apiRequest) (content, string) {
	c := content{}
	c.text, c.hasText = r.params.Get("text"), r.params.Has("text")
	c.markdown, c.hasMD = r.params.Get("markdown_text"), r.params.Has("markdown_text")
	if b := r.params.Get("blocks"); r.params.Has("blocks") {
		var blocks []json.RawMessage
		if err := json.Unmarshal([]byte(b), &blocks); err != nil {
			return c, "invalid_blocks_format"
		}
		if len(blocks) > maxBlocks {
			return c, "invalid_blocks"
		}
		c.blocks, c.hasBlocks = json.RawMessage(b), true
	}
	if c.hasMD && (c.hasText || c.hasBlocks) {
		return c, "markdown_text_conflict"
	}
	if utf8.RuneCountInString(c.markdown) > maxMarkdownText {
		return c, "msg_too_long"
	}
	return c, ""
}

// messageJSON renders a message the way Slack's API returns it.
func (s *Server) messageJSON(m *Message) map[string]any {
	out := map[string]any{"type": "message", "ts": m.TS, "text": m.Visible(), "team": s.opts.teamID}
	if m.User != "" {
		out["user"] = m.User
	}
	if m.BotID != "" {
		out["bot_id"] = m.BotID
		out["app_id"] = s.opts.appID
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
	}
	if m.Blocks != nil {
		out["blocks"] = m.Blocks
	}
	if m.Edited {
		out["edited"] = map[string]any{"user": m.User, "ts": m.TS}
	}
	return out
}

// threadRoot resolves thread_ts the way Slack does: a reply to a reply goes
// to the root, and the root learns it has a thread.
func (st *state) threadRoot(channel, threadTS string) string {
	if threadTS == "" {
		return ""
	}
	if p := st.find(channel, threadTS); p != nil {
		if p.ThreadTS != "" {
			return p.ThreadTS
		}
		p.ThreadTS = p.TS
	}
	return threadTS
}

func (s *Server) chatPostMessage(r apiRequest) result {
	ch, ok := s.st.channels[r.params.Get("channel")]
	if !ok {
		return errResult("channel_not_found")
	}
	c, errCode := readContent(r)
	if errCode != "" {
		return errResult(errCode)
	}
	if c.text == "" && c.markdown == "" && !c.hasBlocks {
		return errResult("no_text")
	}
	md, errCode := readMetadata(r)
	if errCode != "" {
		return errResult(errCode)
	}
	if utf8.RuneCountInString(c.text) > maxPostText {
		c.text = string([]rune(c.text)[:maxPostText])
	}
	m := &Message{
		Channel: ch.ID, TS: s.st.nextTS(), User: s.opts.botUserID, BotID: s.opts.botID,
		Text: c.text, MarkdownText: c.markdown, Blocks: c.blocks, Metadata: md,
	}
	m.ThreadTS = s.st.threadRoot(ch.ID, r.params.Get("thread_ts"))
	s.st.addMessage(m)
	// Slack clears the assistant status when the app replies in the thread.
	delete(s.st.status, ch.ID+"/"+m.ThreadTS)
	if s.opts.echoBot {
		s.echoLocked(m)
	}
	return result{"channel": ch.ID, "ts": m.TS, "message": s.messageJSON(m)}
}

func (s *Server) chatUpdate(r apiRequest) result {
	channel, ts := r.params.Get("channel"), r.params.Get("ts")
	if _, ok := s.st.channels[channel]; !ok {
		return errResult("channel_not_found")
	}
	m := s.st.find(channel, ts)
	switch {
	case m == nil:
		return errResult("message_not_found")
	case m.User != s.opts.botUserID:
		return errResult("cant_update_message")
	case m.Streaming:
		return errResult("streaming_state_conflict")
	}
	c, errCode := readContent(r)
	if errCode != "" {
		return errResult(errCode)
	}
	if utf8.RuneCountInString(c.text) > maxUpdateText {
		return errResult("msg_too_long")
	}
	if c.hasText {
		m.Text, m.MarkdownText = c.text, ""
	}
	if c.hasMD {
		m.MarkdownText, m.Text = c.markdown, ""
	}
	if c.hasBlocks {
		m.Blocks = c.blocks
		if string(c.blocks) == "[]" {
			m.Blocks = nil
		}
	}
	m.Edited = true
	return result{"channel": channel, "ts": ts, "text": m.Visible(), "message": s.messageJSON(m)}
}

func (s *Server) chatPostEphemeral(r apiRequest) result {
	ch, ok := s.st.channels[r.params.Get("channel")]
	if !ok {
		return errResult("channel_not_found")
	}
	user := r.params.Get("user")
	if _, ok := s.st.users[user]; !ok {
		return errResult("user_not_found")
	}
	c, errCode := readContent(r)
	if errCode != "" {
		return errResult(errCode)
	}
	if c.text == "" && c.markdown == "" && !c.hasBlocks {
		return errResult("no_text")
	}
	text := c.text
	if text == "" {
		text = c.markdown
	}
	ts := s.st.nextTS()
	s.st.ephemeral[user] = append(s.st.ephemeral[user], Ephemeral{
		Channel: ch.ID, User: user, TS: ts, ThreadTS: r.params.Get("thread_ts"),
		Text: text, Blocks: c.blocks, Source: "chat.postEphemeral",
	})
	return result{"message_ts": ts}
}

// responseTarget is what a response_url handed out in a payload points at.
type responseTarget struct {
	channel, user       string
	messageTS, threadTS string
}

// newResponseURLLocked registers a response_url for a click or slash command.
func (s *Server) newResponseURLLocked(t responseTarget) string {
	id := s.st.nextID("R")
	s.sock.responseURLs[id] = t
	return s.URL + "/response/" + id
}

// serveResponseURL answers POSTs to a response_url the way Slack does:
// replace_original edits the clicked message, delete_original deletes it,
// response_type in_channel posts, anything else is an ephemeral to the user.
func (s *Server) serveResponseURL(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		ThreadTS        string          `json:"thread_ts"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		DeleteOriginal  bool            `json:"delete_original"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, errResult("invalid_payload"))
		return
	}
	if string(body.Blocks) == "null" {
		body.Blocks = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.sock.responseURLs[r.PathValue("id")]
	if !ok {
		writeJSON(w, http.StatusNotFound, errResult("expired_url"))
		return
	}
	orig := s.st.find(t.channel, t.messageTS)
	switch {
	case body.DeleteOriginal && orig != nil:
		orig.Deleted = true
	case body.ReplaceOriginal && orig != nil:
		orig.Text, orig.MarkdownText, orig.Blocks, orig.Edited = body.Text, "", body.Blocks, true
	case body.ResponseType == "in_channel":
		m := &Message{Channel: t.channel, TS: s.st.nextTS(), User: s.opts.botUserID, BotID: s.opts.botID,
			Text: body.Text, Blocks: body.Blocks}
		m.ThreadTS = s.st.threadRoot(t.channel, body.ThreadTS)
		s.st.addMessage(m)
	default:
		s.st.ephemeral[t.user] = append(s.st.ephemeral[t.user], Ephemeral{
			Channel: t.channel, User: t.user, TS: s.st.nextTS(), ThreadTS: t.threadTS,
			Text: body.Text, Blocks: body.Blocks, Source: "response_url",
		})
	}
	s.notifyLocked()
	writeJSON(w, http.StatusOK, result{"ok": true})
}
