package telegramtest

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxTextLen is Telegram's limit on a message's visible text, in UTF-16
// code units after entity parsing.
const maxTextLen = 4096

// maxCallbackData is the limit on a button's callback_data, in bytes.
const maxCallbackData = 64

// content is a validated text, parsed per its parse_mode.
type content struct {
	text      string
	parseMode string
	parsed    Parsed
	// previews: Telegram would fetch the first link for a preview, as it
	// does unless link_preview_options.is_disabled is true.
	previews bool
}

// parseContent reads and validates text, parse_mode and entities.
func parseContent(p params) (content, error) {
	c := content{text: p["text"], parseMode: p["parse_mode"]}
	if !utf8.ValidString(c.text) {
		return content{}, badRequest("strings must be encoded in UTF-8")
	}
	switch strings.ToLower(c.parseMode) {
	case "html":
		parsed, err := ParseHTML(c.text)
		if err != nil {
			return content{}, badRequest("%s", err.Error())
		}
		c.parsed = parsed
	case "":
		c.parsed = Parsed{Visible: c.text}
		var ents []Entity
		if _, err := p.json("entities", &ents, "message entities"); err != nil {
			return content{}, err
		}
		c.parsed.Entities = ents
		c.parsed.Bold, c.parsed.Code = runsOf(c.text, ents)
	default:
		// Markdown and MarkdownV2 exist on Telegram but are not modelled:
		// failing loudly beats a wrong Visible.
		return content{}, badRequest("unsupported parse_mode")
	}
	if strings.TrimSpace(c.parsed.Visible) == "" {
		return content{}, badRequest("message text is empty")
	}
	if utf16Len(c.parsed.Visible) > maxTextLen {
		return content{}, badRequest("message is too long")
	}
	var lp struct {
		IsDisabled bool `json:"is_disabled"`
	}
	if _, err := p.json("link_preview_options", &lp, "link preview options"); err != nil {
		return content{}, err
	}
	c.previews = !lp.IsDisabled
	return c, nil
}

// runsOf extracts the bold and code runs that explicit entities format.
// Entities out of range are ignored, as Telegram drops them.
func runsOf(text string, ents []Entity) (bold, code []string) {
	units := utf16.Encode([]rune(text))
	for _, e := range ents {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > len(units) {
			continue
		}
		run := string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
		switch e.Type {
		case "bold":
			bold = append(bold, run)
		case "code", "pre":
			code = append(code, run)
		}
	}
	return bold, code
}

// parseMarkup reads an inline keyboard from reply_markup; nil means none
// (absent, empty, or another kind of markup).
func parseMarkup(p params) (*inlineMarkup, error) {
	var m inlineMarkup
	if ok, err := p.json("reply_markup", &m, "reply keyboard markup"); err != nil || !ok {
		return nil, err
	}
	for _, row := range m.InlineKeyboard {
		for _, b := range row {
			switch {
			case b.Text == "":
				return nil, badRequest("BUTTON_TEXT_EMPTY")
			case b.CallbackData != nil:
				if n := len(*b.CallbackData); n == 0 || n > maxCallbackData {
					return nil, badRequest("BUTTON_DATA_INVALID")
				}
			case b.URL == "":
				return nil, badRequest("text buttons are unallowed in the inline keyboard")
			}
		}
	}
	if m.empty() {
		return nil, nil
	}
	return &m, nil
}

func sameMarkup(a, b *inlineMarkup) bool {
	if a.empty() || b.empty() {
		return a.empty() == b.empty()
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func sameContent(m *message, c content) bool {
	return m.parsed.Visible == c.parsed.Visible && slices.Equal(m.parsed.Entities, c.parsed.Entities)
}

// replyRef is where a message replies: reply_parameters, or the legacy
// reply_to_message_id + allow_sending_without_reply.
type replyRef struct {
	MessageID                int  `json:"message_id"`
	AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
}

func parseReply(p params) (replyRef, error) {
	var r replyRef
	if ok, err := p.json("reply_parameters", &r, "reply parameters"); ok || err != nil {
		return r, err
	}
	id, err := p.int("reply_to_message_id")
	if err != nil {
		return replyRef{}, err
	}
	return replyRef{MessageID: id, AllowSendingWithoutReply: p.bool("allow_sending_without_reply")}, nil
}
