package rowdata

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/llm"
)

// storedMessage is the JSON form of an llm.Message in the messages table.
// It is llm.Message's own JSON, fields added later included, except that
// tool-call arguments are kept as a string: they are the model's raw output,
// possibly invalid JSON, which a json.RawMessage can neither marshal nor be
// trusted to keep byte for byte (marshalling compacts it).
type storedMessage struct {
	llm.Message
	ToolCalls []storedToolCall `json:"tool_calls,omitempty"` // shadows Message.ToolCalls
}

type storedToolCall struct {
	llm.ToolCall
	Arguments string `json:"arguments,omitempty"` // shadows ToolCall.Arguments
	// ArgumentsBytes holds arguments that are not valid UTF-8, which a
	// JSON string cannot carry exactly; base64 in JSON.
	ArgumentsBytes []byte `json:"arguments_bytes,omitempty"`
}

// EncodeMessage returns the body column of m.
func EncodeMessage(m llm.Message) ([]byte, error) {
	s := storedMessage{Message: m}
	s.Message.ToolCalls = nil
	if len(m.ToolCalls) > 0 {
		s.ToolCalls = make([]storedToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			sc := storedToolCall{ToolCall: c}
			sc.ToolCall.Arguments = nil
			if utf8.Valid(c.Arguments) {
				sc.Arguments = string(c.Arguments)
			} else {
				sc.ArgumentsBytes = c.Arguments
			}
			s.ToolCalls[i] = sc
		}
	}
	return json.Marshal(s)
}

// DecodeMessage reads a body column back.
func DecodeMessage(body []byte) (llm.Message, error) {
	var s storedMessage
	if err := json.Unmarshal(body, &s); err != nil {
		return llm.Message{}, fmt.Errorf("decode message: %w", err)
	}
	m := s.Message
	if len(s.ToolCalls) > 0 {
		m.ToolCalls = make([]llm.ToolCall, len(s.ToolCalls))
		for i, sc := range s.ToolCalls {
			c := sc.ToolCall
			switch {
			case sc.ArgumentsBytes != nil:
				c.Arguments = sc.ArgumentsBytes
			case sc.Arguments != "":
				c.Arguments = json.RawMessage(sc.Arguments)
			}
			m.ToolCalls[i] = c
		}
	}
	return m, nil
}

// WithoutImageData returns m with its images' bytes left out (the hashes
// set), and the images whose bytes are to be stored. The pictures of a
// session's transcript live in session_files, once per session and
// content hash (store's migration 00014 says why); a message's JSON keeps
// each image's hash, type, size and name, without its bytes.
func WithoutImageData(m llm.Message) (llm.Message, []llm.Image) {
	if len(m.Images) == 0 {
		return m, nil
	}
	var keep []llm.Image
	imgs := make([]llm.Image, len(m.Images))
	for i, img := range m.Images {
		img = llm.ImageHash(img)
		if len(img.Data) > 0 {
			keep = append(keep, img)
		}
		img.Data = nil
		imgs[i] = img
	}
	m.Images = imgs
	return m, keep
}

// EncodeMessages encodes msgs for the messages table, before any lock is
// taken: the bodies in order, the pictures whose bytes go to
// session_files, and the hashes of every picture the messages show.
func EncodeMessages(msgs []llm.Message) (bodies []string, imgs []llm.Image, hashes []string, err error) {
	bodies = make([]string, len(msgs))
	for i, m := range msgs {
		m, keep := WithoutImageData(m)
		imgs = append(imgs, keep...)
		for _, img := range m.Images {
			hashes = append(hashes, img.SHA256)
		}
		b, err := EncodeMessage(m)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("message %d: %w", i, err)
		}
		// A string: SQLite's STRICT TEXT column rejects a []byte, which
		// binds as a BLOB.
		bodies[i] = string(b)
	}
	return bodies, imgs, hashes, nil
}

// FillImages sets the bytes of the images of msgs from data, keyed by
// content hash. An image whose bytes are missing keeps nil Data: the
// providers send its placeholder instead.
func FillImages(msgs []llm.Message, data map[string][]byte) {
	for i := range msgs {
		for j := range msgs[i].Images {
			msgs[i].Images[j].Data = data[msgs[i].Images[j].SHA256]
		}
	}
}

// HasImages reports whether any of msgs shows a picture, so that a reader
// can skip the session_files query when none does.
func HasImages(msgs []llm.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// SearchText is what the conversations' full-text index holds of m: what
// a person wrote or Parley answered. Tool results, system text, the
// preamble and tool calls' arguments are not a conversation's words, so
// they are not searched; "" for a message with nothing to index.
func SearchText(m llm.Message) string {
	if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
		return ""
	}
	return m.Text
}
