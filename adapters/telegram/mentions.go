package telegram

import (
	"cmp"
	"html"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// A person of Out.Mentions is written one of three ways:
//
//   - with a numeric ID, as a text mention: their name linked to them,
//     which notifies them, whether or not they have a username;
//   - without an ID, with a username for a Name, as @username, which
//     Telegram itself turns into a mention that notifies them;
//   - anyone else by name, as text, which notifies nobody (no @, which
//     could make a longer name the mention of another person's username).

// htmlMentions puts out's Mentions before text, rendered HTML: a text
// mention is <a href="tg://user?id=…">Name</a>.
func htmlMentions(out chat.Out, text string) string {
	return out.WithMentions(text, func(u chat.User) string {
		label := html.EscapeString(mentionLabel(u))
		if id, ok := personID(u); ok {
			return `<a href="tg://user?id=` + strconv.FormatInt(id, 10) + `">` + label + "</a>"
		}
		return label
	})
}

// plainMentions puts out's Mentions before text, plain: a text mention is
// the name with a text_mention entity over it, since plain text has no
// links.
func plainMentions(out chat.Out, text string) rendered {
	var r rendered
	at := 0 // where the next mention starts, in UTF-16 units as entities count
	r.text = out.WithMentions(text, func(u chat.User) string {
		label := mentionLabel(u)
		n := format.UTF16Len(label)
		if id, ok := personID(u); ok {
			r.entities = append(r.entities, tgbotapi.MessageEntity{
				Type: "text_mention", Offset: at, Length: n, User: &tgbotapi.User{ID: id, FirstName: label},
			})
		}
		at += n + 1 // and the space after it
		return label
	})
	return r
}

// personID is u's numeric id, when u has one: a person's is positive (a
// chat writing anonymously, "chat:…", is no one to notify).
func personID(u chat.User) (int64, bool) {
	id, err := strconv.ParseInt(u.ID, 10, 64)
	return id, err == nil && id > 0
}

// mentionLabel is what shows of u: their name, @username for a username
// without an id, else their id. A name's own leading @ goes: before a
// name that is no username it would start the mention of someone else's.
func mentionLabel(u chat.User) string {
	name := strings.TrimLeft(strings.TrimSpace(u.Name), "@")
	if _, person := personID(u); !person && u.ID == "" && username(name) {
		return "@" + name
	}
	return cmp.Or(name, u.ID)
}

// username reports whether s is a Telegram username: 5 to 32 letters,
// digits and underscores, starting with a letter.
func username(s string) bool {
	if len(s) < 5 || len(s) > 32 || !isLetter(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
