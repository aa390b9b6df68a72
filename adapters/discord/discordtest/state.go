package discordtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Channel types used by the fake (Discord's numbering).
const (
	channelText   = 0
	channelDM     = 1
	channelThread = 11 // public thread
)

// discordEpoch is the start of Discord's snowflake clock (2015-01-01).
const discordEpoch = 1420070400000

// Channel is a channel as the fake knows it: a guild text channel (type 0), a
// DM (type 1) or a public thread (type 11, ParentID set).
type Channel struct {
	ID, GuildID, ParentID, Name string
	Type                        int
}

type channel struct {
	Channel
	forbidThreads bool
	recipient     string // DMs: the user on the other side
	archiveAfter  int    // threads: auto_archive_duration, minutes
	created       time.Time
}

type guild struct {
	id, name string
	channels []string // in creation order, threads included
	created  time.Time
	// Membership: every known user is a member of every guild (the fake
	// lets anyone post anywhere), except those in left; joined holds when
	// AddMember (re)added one, others joined when the guild was added.
	left   map[string]bool
	joined map[string]time.Time
}

// isMember reports whether userID is a member of g: a user the fake
// knows who has not left.
func (w *world) isMember(g *guild, userID string) bool {
	_, known := w.users[userID]
	return known && !g.left[userID]
}

// joinedAt is when userID joined g.
func (g *guild) joinedAt(userID string) time.Time {
	if t, ok := g.joined[userID]; ok {
		return t
	}
	return g.created
}

// memberCount is how many members g has.
func (w *world) memberCount(g *guild) int {
	n := 0
	for id := range w.users {
		if !g.left[id] {
			n++
		}
	}
	return n
}

type user struct {
	id, name string
	bot      bool
}

// message is the fake's record of one message; Message is its public view.
type message struct {
	id, channelID, guildID, authorID string
	bot                              bool
	content                          string
	components                       json.RawMessage // as sent
	buttons                          [][]Button
	reference                        string
	flags                            int
	pings                            []string
	allowed                          *AllowedMentions // of the call that last set content
	mentions                         []string         // user ids
	mentionRoles                     []string
	mentionEveryone                  bool
	edits                            int
	created                          time.Time
	edited                           time.Time
	deleted                          bool
	ephemeralFor                     string // not in the channel: shown to this user only
	webhookID                        string // set on interaction responses
	attachments                      []*attachment
	nonce                            string // as created, "" for none
}

type world struct {
	botID, botName string
	users          map[string]*user
	guilds         map[string]*guild
	guildOrder     []string
	channels       map[string]*channel
	messages       map[string]*message
	order          map[string][]string // channel → message ids, oldest first
	dms            map[string]string   // user → DM channel
	interactions   map[string]*interaction
	tokens         map[string]*interaction
	replies        map[string][]InteractionReply
	ephemeral      map[string][]string
	commands       map[string][]registeredCommand // guild ("" global) → as last overwritten
	commandIDs     map[string]string              // guild/name → id, stable across overwrites
	lastID         uint64
	nonces         map[string]nonceEntry // author/nonce → message, for enforce_nonce
}

func newWorld(o options) *world {
	w := &world{
		botID:        o.botID,
		botName:      o.botName,
		users:        map[string]*user{},
		guilds:       map[string]*guild{},
		channels:     map[string]*channel{},
		messages:     map[string]*message{},
		order:        map[string][]string{},
		dms:          map[string]string{},
		interactions: map[string]*interaction{},
		tokens:       map[string]*interaction{},
		replies:      map[string][]InteractionReply{},
		ephemeral:    map[string][]string{},
		nonces:       map[string]nonceEntry{},
		commands:     map[string][]registeredCommand{},
		commandIDs:   map[string]string{},
	}
	w.users[o.botID] = &user{id: o.botID, name: o.botName, bot: true}
	return w
}

// snowflake returns a fresh id: milliseconds since the Discord epoch in the
// top bits, so ids sort by creation time as real ones do.
func (w *world) snowflake(now time.Time) string {
	id := uint64(now.UnixMilli()-discordEpoch) << 22
	if id <= w.lastID {
		id = w.lastID + 1
	}
	w.lastID = id
	return strconv.FormatUint(id, 10)
}

func (w *world) user(id string) *user {
	if u, ok := w.users[id]; ok {
		return u
	}
	u := &user{id: id, name: "user" + id}
	w.users[id] = u
	return u
}

func (w *world) addChannel(c *channel) {
	w.channels[c.ID] = c
	if g, ok := w.guilds[c.GuildID]; ok {
		g.channels = append(g.channels, c.ID)
	}
}

func (w *world) addMessage(m *message) {
	w.messages[m.id] = m
	if m.ephemeralFor == "" {
		w.order[m.channelID] = append(w.order[m.channelID], m.id)
	}
}

// channelMessage finds a live message of a channel.
func (w *world) channelMessage(channelID, id string) (*message, bool) {
	m, ok := w.messages[id]
	if !ok || m.deleted || m.channelID != channelID || m.ephemeralFor != "" {
		return nil, false
	}
	return m, true
}

func (w *world) dmChannel(userID string, now time.Time) *channel {
	if id, ok := w.dms[userID]; ok {
		return w.channels[id]
	}
	c := &channel{Channel: Channel{ID: w.snowflake(now), Type: channelDM}, recipient: userID, created: now}
	w.user(userID)
	w.dms[userID] = c.ID
	w.addChannel(c)
	return c
}

// AddGuild adds (or renames) a guild the bot is in. Every user the fake
// knows, now or later, is a member of it until RemoveMember.
func (s *Server) AddGuild(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g, ok := s.w.guilds[id]; ok {
		g.name = name
	} else {
		s.w.guilds[id] = &guild{id: id, name: name, created: s.now(), left: map[string]bool{}, joined: map[string]time.Time{}}
		s.w.guildOrder = append(s.w.guildOrder, id)
	}
	s.notifyLocked()
}

// AddChannel adds a text channel (type 0) to a guild added with AddGuild.
func (s *Server) AddChannel(guildID, id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.w.guilds[guildID]; !ok {
		panic(fmt.Sprintf("discordtest: AddChannel(%q, %q): unknown guild; call AddGuild first", guildID, id))
	}
	if c, ok := s.w.channels[id]; ok {
		c.Name = name
	} else {
		s.w.addChannel(&channel{Channel: Channel{ID: id, GuildID: guildID, Name: name, Type: channelText}, created: s.now()})
	}
	s.notifyLocked()
}

// ForbidThreads makes thread creation in channelID answer 403 50013 Missing Permissions.
func (s *Server) ForbidThreads(channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.w.channels[channelID]; ok {
		c.forbidThreads = true
	}
}

// AddUser adds (or renames) a user.
func (s *Server) AddUser(id, username string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.user(id).name = username
	s.notifyLocked()
}

// DMChannel returns the DM channel between the bot and the user, creating it
// on first use; the id is stable.
func (s *Server) DMChannel(userID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.w.dmChannel(userID, s.now())
	s.notifyLocked()
	return c.ID
}

// RemoveMember makes userID no member of guildID, as if they left or were
// kicked: GET /guilds/{id}/members/{id} answers 404 Unknown Member (10007)
// for them and GUILD_CREATE's member_count leaves them out. Nothing else
// changes: the fake still lets them post, and their earlier messages stay.
func (s *Server) RemoveMember(guildID, userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.mustGuild("RemoveMember", guildID)
	g.left[userID] = true
	delete(g.joined, userID)
	s.notifyLocked()
}

// AddMember makes userID (added as with AddUser if the fake does not know
// them) a member of guildID again, joined now.
func (s *Server) AddMember(guildID, userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.mustGuild("AddMember", guildID)
	s.w.user(userID)
	if g.left[userID] {
		delete(g.left, userID)
		g.joined[userID] = s.now()
	}
	s.notifyLocked()
}

// IsMember reports whether userID is a member of guildID now.
func (s *Server) IsMember(guildID, userID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.w.guilds[guildID]
	return ok && s.w.isMember(g, userID)
}

func (s *Server) mustGuild(op, guildID string) *guild {
	g, ok := s.w.guilds[guildID]
	if !ok {
		panic(fmt.Sprintf("discordtest: %s(%q): unknown guild; call AddGuild first", op, guildID))
	}
	return g
}
