package slacktest

import (
	"encoding/json"
	"fmt"
	"sort"
)

// ChannelKind is the kind of a conversation.
type ChannelKind string

// Conversation kinds, as Slack distinguishes them (channel ids start with C,
// G, D and G respectively).
const (
	Public  ChannelKind = "public"
	Private ChannelKind = "private"
	IM      ChannelKind = "im"
	MPIM    ChannelKind = "mpim"
)

// eventChannelType is the channel_type Slack puts on message events.
func (k ChannelKind) eventChannelType() string {
	switch k {
	case Private:
		return "group"
	case IM:
		return "im"
	case MPIM:
		return "mpim"
	default:
		return "channel"
	}
}

// User is a simulated workspace member.
type User struct {
	ID, Name string
	IsBot    bool
	// Zone is the IANA time zone of their profile (users.info user.tz),
	// "" for none.
	Zone string
}

// Channel is a simulated conversation.
type Channel struct {
	ID, Name string
	Kind     ChannelKind
}

// Message is a message as a person sees it now: edits are applied in place,
// a streamed message carries everything appended so far.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // empty for a top-level message without replies
	User     string
	BotID    string // set when the app (or another bot) posted it
	Text     string
	// MarkdownText is the markdown_text of postMessage/update, or the
	// concatenation of every markdown_text chunk of a chat.*Stream message.
	MarkdownText string
	Blocks       json.RawMessage // the blocks JSON as sent, nil if none
	Metadata     json.RawMessage // chat.postMessage's metadata as sent, nil if none
	Edited       bool
	Deleted      bool
	Streaming    bool // between chat.startStream and chat.stopStream
	Streamed     bool // created by chat.startStream
}

// Visible is the text a person reads: the markdown text if any, else text.
func (m Message) Visible() string {
	if m.MarkdownText != "" {
		return m.MarkdownText
	}
	return m.Text
}

// Ephemeral is an "Only visible to you" message.
type Ephemeral struct {
	Channel, User string
	TS, ThreadTS  string
	Text          string
	Blocks        json.RawMessage
	// Source is how it was sent: "chat.postEphemeral", "response_url" or
	// "slash_ack" (the payload of a slash command's ack).
	Source string
}

type state struct {
	users     map[string]*User
	channels  map[string]*Channel
	messages  map[string][]*Message // per channel, in ts order
	ephemeral map[string][]Ephemeral
	tsSeq     int64
	idSeq     int64
	status    map[string]string // channel/thread_ts → assistant status
	titles    map[string]string
	prompts   map[string]json.RawMessage
	members   map[string]map[string]bool // channel → its members' user ids (members.go)
	homes     map[string]json.RawMessage // user → the Home tab view published for them (home.go)
	botUserID string
}

func newState(o options) *state {
	st := &state{
		users:     map[string]*User{},
		channels:  map[string]*Channel{},
		messages:  map[string][]*Message{},
		ephemeral: map[string][]Ephemeral{},
		status:    map[string]string{},
		titles:    map[string]string{},
		prompts:   map[string]json.RawMessage{},
		members:   map[string]map[string]bool{},
		homes:     map[string]json.RawMessage{},
		botUserID: o.botUserID,
	}
	st.users[o.botUserID] = &User{ID: o.botUserID, Name: o.botName, IsBot: true}
	return st
}

// nextTS returns a fresh, strictly increasing Slack timestamp such as
// "1700000000.000100"; strings compare in time order like real ones.
func (st *state) nextTS() string {
	st.tsSeq += 100
	return fmt.Sprintf("%d.%06d", 1700000000+st.tsSeq/1000000, st.tsSeq%1000000)
}

// nextID returns a unique id with the given prefix.
func (st *state) nextID(prefix string) string {
	st.idSeq++
	return fmt.Sprintf("%s%08d", prefix, st.idSeq)
}

// channel returns the channel, creating a public one for unknown ids so that
// injection helpers never fail on an undeclared channel. The bot is a
// member of every channel it creates.
func (st *state) channel(id string) *Channel {
	if c, ok := st.channels[id]; ok {
		return c
	}
	kind := Public
	switch {
	case len(id) > 0 && id[0] == 'D':
		kind = IM
	case len(id) > 0 && id[0] == 'G':
		kind = Private
	}
	c := &Channel{ID: id, Name: id, Kind: kind}
	st.channels[id] = c
	st.join(id, st.botUserID)
	return c
}

func (st *state) user(id string) *User {
	if u, ok := st.users[id]; ok {
		return u
	}
	u := &User{ID: id, Name: id}
	st.users[id] = u
	return u
}

func (st *state) addMessage(m *Message) {
	st.messages[m.Channel] = append(st.messages[m.Channel], m)
	msgs := st.messages[m.Channel]
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].TS < msgs[j].TS })
}

func (st *state) find(channel, ts string) *Message {
	for _, m := range st.messages[channel] {
		if m.TS == ts && !m.Deleted {
			return m
		}
	}
	return nil
}

// AddUser adds (or renames) a simulated user.
func (s *Server) AddUser(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.user(id).Name = name
	s.notifyLocked()
}

// AddUserWithZone adds (or redefines) a simulated user whose profile has
// the IANA time zone zone ("Europe/Berlin").
func (s *Server) AddUserWithZone(id, name, zone string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.user(id)
	u.Name, u.Zone = name, zone
	s.notifyLocked()
}

// AddChannel adds (or redefines) a conversation.
func (s *Server) AddChannel(id, name string, kind ChannelKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.st.channel(id)
	c.Name, c.Kind = name, kind
	s.notifyLocked()
}
