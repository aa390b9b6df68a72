package telegramtest

// The JSON shapes of Telegram objects, with the Bot API's field names. They
// include fields newer than tgbotapi v5.5.1 knows (message_thread_id,
// is_topic_message…), which is what adapters decode from raw JSON.

type wireUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

type wireChat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	IsForum   bool   `json:"is_forum,omitempty"`
}

// Entity is a MessageEntity: offsets and lengths count UTF-16 code units.
type Entity struct {
	Type          string `json:"type"`
	Offset        int    `json:"offset"`
	Length        int    `json:"length"`
	URL           string `json:"url,omitempty"`
	Language      string `json:"language,omitempty"`
	CustomEmojiID string `json:"custom_emoji_id,omitempty"`
	// User is the person a text_mention names (and notifies).
	User EntityUser `json:"user,omitzero"`
}

// EntityUser is the user of a text_mention entity; a value, so Entities
// compare with ==.
type EntityUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
}

type wireTopicCreated struct {
	Name      string `json:"name"`
	IconColor int    `json:"icon_color"`
}

type wireMessage struct {
	MessageID         int               `json:"message_id"`
	MessageThreadID   int               `json:"message_thread_id,omitempty"`
	From              *wireUser         `json:"from,omitempty"`
	Chat              wireChat          `json:"chat"`
	Date              int64             `json:"date"`
	EditDate          int64             `json:"edit_date,omitempty"`
	IsTopicMessage    bool              `json:"is_topic_message,omitempty"`
	ReplyToMessage    *wireMessage      `json:"reply_to_message,omitempty"`
	Text              string            `json:"text,omitempty"`
	Entities          []Entity          `json:"entities,omitempty"`
	Caption           string            `json:"caption,omitempty"`
	CaptionEntities   []Entity          `json:"caption_entities,omitempty"`
	Document          *wireDocument     `json:"document,omitempty"`
	Photo             []wirePhotoSize   `json:"photo,omitempty"`
	Voice             *wireAudio        `json:"voice,omitempty"`
	Audio             *wireAudio        `json:"audio,omitempty"`
	ForumTopicCreated *wireTopicCreated `json:"forum_topic_created,omitempty"`
	ReplyMarkup       *inlineMarkup     `json:"reply_markup,omitempty"`
}

type wireCallbackQuery struct {
	ID           string       `json:"id"`
	From         wireUser     `json:"from"`
	Message      *wireMessage `json:"message,omitempty"`
	ChatInstance string       `json:"chat_instance"`
	Data         string       `json:"data,omitempty"`
}

type inlineButton struct {
	Text         string  `json:"text"`
	CallbackData *string `json:"callback_data,omitempty"`
	URL          string  `json:"url,omitempty"`
}

type inlineMarkup struct {
	InlineKeyboard [][]inlineButton `json:"inline_keyboard"`
}

func (m *inlineMarkup) empty() bool {
	if m == nil {
		return true
	}
	for _, row := range m.InlineKeyboard {
		if len(row) > 0 {
			return false
		}
	}
	return true
}

func (u *user) wire() wireUser {
	return wireUser{ID: u.id, IsBot: u.isBot, FirstName: u.firstName, Username: u.username}
}

func (c *chat) wire() wireChat {
	wc := wireChat{ID: c.id, Type: c.kind, Title: c.title, IsForum: c.isForum}
	if c.user != nil {
		wc.FirstName, wc.Username = c.user.firstName, c.user.username
	}
	return wc
}

// wire renders m as Telegram does; reply_to_message is one level deep.
func (m *message) wire(withReply bool) *wireMessage {
	wm := &wireMessage{
		MessageID: m.id,
		From:      new(m.from.wire()),
		Chat:      m.chat.wire(),
		Date:      m.date,
		EditDate:  m.editDate,
		Document:  m.document,
		Photo:     m.photo,
		Voice:     m.voice,
		Audio:     m.audio,
	}
	if m.caption {
		wm.Caption, wm.CaptionEntities = m.parsed.Visible, m.parsed.Entities
	} else {
		wm.Text, wm.Entities = m.parsed.Visible, m.parsed.Entities
	}
	if m.thread != 0 {
		wm.MessageThreadID, wm.IsTopicMessage = m.thread, true
	}
	if m.service {
		wm.ForumTopicCreated = &wireTopicCreated{Name: m.topicName, IconColor: 7322096}
	}
	if !m.markup.empty() {
		wm.ReplyMarkup = m.markup
	}
	if withReply && m.replyShown != 0 {
		if r := m.chat.find(m.replyShown); r != nil {
			wm.ReplyToMessage = r.wire(false)
		}
	}
	return wm
}
