package slacktest

import (
	"encoding/json"
	"strconv"
)

// Message metadata (docs.slack.dev "Message metadata"): chat.postMessage
// takes `metadata`, {"event_type": …, "event_payload": {…}}, and keeps it
// with the message; conversations.history and conversations.replies return
// it when asked with include_all_metadata. Parley keeps a reply's key there
// so that, after a crash, it can find a message it posted before it could
// record it.

// readMetadata validates chat.postMessage's metadata the way Slack does:
// an object with an event_type and an object event_payload.
func readMetadata(r apiRequest) (json.RawMessage, string) {
	raw := r.params.Get("metadata")
	if raw == "" {
		return nil, ""
	}
	var md struct {
		EventType    string         `json:"event_type"`
		EventPayload map[string]any `json:"event_payload"`
	}
	if err := json.Unmarshal([]byte(raw), &md); err != nil || md.EventType == "" || md.EventPayload == nil {
		return nil, "invalid_metadata_format"
	}
	return json.RawMessage(raw), ""
}

// listing is the part of a conversation a history call returns: messages
// after oldest and up to latest (exclusive both, unless inclusive), at
// most limit of them from the cursor on, metadata included when asked.
func (s *Server) listing(r apiRequest, msgs []Message, newestFirst bool) result {
	p := r.params
	oldest, latest := p.Get("oldest"), p.Get("latest")
	inclusive := p.Get("inclusive") == "1" || p.Get("inclusive") == "true"
	withMD := p.Get("include_all_metadata") == "1" || p.Get("include_all_metadata") == "true"
	limit, _ := strconv.Atoi(p.Get("limit"))
	if limit <= 0 || limit > 999 {
		limit = 100 // Slack's default; it caps at 999
	}
	start, _ := strconv.Atoi(p.Get("cursor"))
	var in []Message
	for _, m := range msgs {
		after := oldest == "" || m.TS > oldest || inclusive && m.TS == oldest
		before := latest == "" || m.TS < latest || inclusive && m.TS == latest
		if after && before {
			in = append(in, m)
		}
	}
	if newestFirst {
		for i, j := 0, len(in)-1; i < j; i, j = i+1, j-1 {
			in[i], in[j] = in[j], in[i]
		}
	}
	out := []map[string]any{}
	next := ""
	for i := start; i < len(in); i++ {
		if len(out) == limit {
			next = strconv.Itoa(i)
			break
		}
		j := s.messageJSON(&in[i])
		if withMD && in[i].Metadata != nil {
			j["metadata"] = in[i].Metadata
		}
		out = append(out, j)
	}
	return result{"messages": out, "has_more": next != "", "response_metadata": map[string]any{"next_cursor": next}}
}

// conversationsHistory lists a conversation's top-level messages, newest
// first (thread replies stay in their threads).
func (s *Server) conversationsHistory(r apiRequest) result {
	channel := r.params.Get("channel")
	if _, ok := s.st.channels[channel]; !ok {
		return errResult("channel_not_found")
	}
	var top []Message
	for _, m := range s.st.messages[channel] {
		if !m.Deleted && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			top = append(top, *m)
		}
	}
	return s.listing(r, top, true)
}
