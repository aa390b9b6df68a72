package telegramtest

import (
	"fmt"
	"maps"
	"strings"
	"time"
)

// Chat types as Telegram names them.
const (
	chatPrivate    = "private"
	chatSupergroup = "supergroup"
)

type user struct {
	id        int64
	firstName string
	username  string
	isBot     bool
	started   bool // the user has started the bot, so it may message them
}

type chat struct {
	id      int64
	kind    string
	title   string
	isForum bool
	user    *user // the other party of a private chat
	// migratedTo is the supergroup a group became (MigrateGroup): every
	// call naming the group answers 400 with migrate_to_chat_id.
	migratedTo int64

	msgs    []*message // oldest first, deleted ones included
	lastID  int
	topics  map[int]string // message_thread_id → name
	actions []string
	drafts  []Draft
	// members are the standings recorded in a group (members.go); the
	// bot is a member unless it says otherwise.
	members map[int64]membership
}

func (c *chat) private() bool { return c.kind == chatPrivate }

// find returns the live message with id, or nil.
func (c *chat) find(id int) *message {
	for _, m := range c.msgs {
		if m.id == id && !m.deleted {
			return m
		}
	}
	return nil
}

type message struct {
	id     int
	chat   *chat
	thread int // message_thread_id of a forum topic, 0 for none
	from   *user
	date   int64

	text      string // as sent: HTML source when parseMode is HTML
	parseMode string
	parsed    Parsed
	previews  bool // links in it are previewed (content.previews)

	replyTo    int // the explicit reply target
	replyShown int // what reply_to_message shows: replyTo, or the topic's root
	markup     *inlineMarkup
	edits      int
	editDate   int64
	service    bool
	topicName  string
	deleted    bool
	// caption is true for a media message: text is its caption. document
	// and photo are what it carries (files.go).
	caption  bool
	document *wireDocument
	photo    []wirePhotoSize
	voice    *wireAudio
	audio    *wireAudio
}

// world is the simulated Telegram: the bot, users and chats. It is guarded
// by Server.mu.
type world struct {
	bot   *user
	users map[int64]*user
	chats map[int64]*chat
}

func newWorld(o options) *world {
	return &world{
		bot:   &user{id: o.botID, firstName: o.botName, username: o.botUsername, isBot: true},
		users: map[int64]*user{},
		chats: map[int64]*chat{},
	}
}

// user returns the user with id, inventing one so injection never fails on
// an undeclared id.
func (w *world) user(id int64) *user {
	if id == w.bot.id {
		return w.bot
	}
	if u, ok := w.users[id]; ok {
		return u
	}
	u := &user{id: id, firstName: fmt.Sprintf("User%d", id), started: true}
	w.users[id] = u
	return u
}

// chat returns the chat with id, inventing a private chat (positive ids) or
// a supergroup (negative ids) when it is unknown.
func (w *world) chat(id int64) *chat {
	if c, ok := w.chats[id]; ok {
		return c
	}
	if id > 0 {
		return w.privateChat(w.user(id))
	}
	c := &chat{id: id, kind: chatSupergroup, title: fmt.Sprintf("Group %d", -id), topics: map[int]string{}}
	w.chats[id] = c
	return c
}

func (w *world) privateChat(u *user) *chat {
	c, ok := w.chats[u.id]
	if !ok {
		c = &chat{id: u.id, kind: chatPrivate, topics: map[int]string{}}
		w.chats[u.id] = c
	}
	c.user = u
	return c
}

func (w *world) chatByUsername(name string) *chat {
	for _, c := range w.chats {
		if c.user != nil && c.user.username != "" && strings.EqualFold(c.user.username, name) {
			return c
		}
	}
	return nil
}

// add appends a new message to c with the next message_id.
func (c *chat) add(m *message) *message {
	c.lastID++
	m.id, m.chat, m.date = c.lastID, c, time.Now().Unix()
	c.msgs = append(c.msgs, m)
	return m
}

// AddUser adds (or renames) a user and their private chat with the bot
// (chat id == user id). Users have started the bot unless SetStarted says
// otherwise.
func (s *Server) AddUser(id int64, firstName, username string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.world.user(id)
	u.firstName, u.username = firstName, username
	s.world.privateChat(u)
	s.notifyLocked()
}

// SetStarted sets whether the user has started the bot. The bot cannot send
// to the private chat of a user who has not: Telegram answers 403.
func (s *Server) SetStarted(userID int64, started bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.world.user(userID).started = started
	s.notifyLocked()
}

// AddGroup adds a supergroup without topics. Group ids are negative.
func (s *Server) AddGroup(id int64, title string) {
	s.addSupergroup(id, title, false)
}

// MigrateGroup upgrades group oldID to the supergroup newID, as Telegram
// does when a group gets a public link or grows: from then on every call
// naming oldID answers 400 "group chat was upgraded to a supergroup chat"
// with parameters.migrate_to_chat_id, and newID is a supergroup with the
// same title and members.
func (s *Server) MigrateGroup(oldID, newID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.world.chat(oldID)
	c := s.world.chat(newID)
	c.kind, c.title, c.user = chatSupergroup, old.title, nil
	c.members = maps.Clone(old.members) // the same people, in the new chat
	old.migratedTo = newID
	s.notifyLocked()
}

// AddForum adds a supergroup with topics (is_forum).
func (s *Server) AddForum(id int64, title string) {
	s.addSupergroup(id, title, true)
}

func (s *Server) addSupergroup(id int64, title string, forum bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.world.chat(id)
	c.kind, c.title, c.isForum, c.user = chatSupergroup, title, forum, nil
	s.notifyLocked()
}

// AddTopic creates a forum topic the way Telegram does: a user posts the
// forum_topic_created service message, whose message_id becomes the topic's
// message_thread_id. The service message is not queued as an update.
func (s *Server) AddTopic(chatID int64, name string) (threadID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.world.chat(chatID)
	m := c.add(&message{from: s.topicCreatorLocked(), service: true, topicName: name})
	m.thread = m.id
	c.topics[m.id] = name
	s.notifyLocked()
	return m.id
}

// topicCreatorLocked picks who creates topics: any known user, else an
// invented admin.
func (s *Server) topicCreatorLocked() *user {
	var first *user
	for _, u := range s.world.users {
		if first == nil || u.id < first.id {
			first = u
		}
	}
	if first == nil {
		first = s.world.user(1)
	}
	return first
}
