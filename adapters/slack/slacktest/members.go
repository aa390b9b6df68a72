package slacktest

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
)

// Channel membership, for conversations.members. The bot is a member of
// every conversation the fake knows (conversations.info says is_member);
// people become members by acting in one (posting, sharing files,
// clicking, running a slash command, opening an assistant thread), as
// Slack lets only members do, or by Join. Leave takes them out again; a
// bot that left a private conversation no longer sees it.

// join makes users members of channel. Callers hold s.mu.
func (st *state) join(channel string, users ...string) {
	m := st.members[channel]
	if m == nil {
		m = map[string]bool{}
		st.members[channel] = m
	}
	for _, u := range users {
		m[u] = true
	}
}

// Join makes users members of channel, adding the channel and the users
// when unknown.
func (s *Server) Join(channel string, users ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.channel(channel)
	for _, u := range users {
		s.st.user(u)
	}
	s.st.join(channel, users...)
	s.notifyLocked()
}

// Leave takes user out of channel, as leaving it or being removed does.
// The bot may leave too: a private conversation (or DM) it left answers
// channel_not_found from then on, a public one still lists its members.
func (s *Server) Leave(channel, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.st.members[channel], user)
	s.notifyLocked()
}

// Members lists channel's members by user id, as conversations.members
// would: sorted, the bot included while it is in.
func (s *Server) Members(channel string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.memberList(channel)
}

func (st *state) memberList(channel string) []string {
	var ids []string
	for u := range st.members[channel] {
		ids = append(ids, u)
	}
	slices.Sort(ids)
	return ids
}

// Slack's conversations.members limit: "under 1000", 100 when not given.
const (
	defaultMembersLimit = 100
	maxMembersLimit     = 999
)

// membersCursor is a next_cursor as Slack writes it ("dXNlcjpVMDYxTkZUVDI="
// is "user:U061NFTT2"): the first member of the next page. Members are
// listed in id order, so a cursor still works after members come or go.
func membersCursor(user string) string {
	return base64.StdEncoding.EncodeToString([]byte("user:" + user))
}

func parseMembersCursor(c string) (string, bool) {
	raw, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	u, ok := strings.CutPrefix(string(raw), "user:")
	return u, ok && u != ""
}

// conversationsMembers pages through a conversation's members: limit of
// them (at most 999) from the cursor on, and the cursor of the rest in
// response_metadata.next_cursor ("" on the last page).
func (s *Server) conversationsMembers(r apiRequest) result {
	p := r.params
	channel := p.Get("channel")
	ch, ok := s.st.channels[channel]
	if !ok || ch.Kind != Public && !s.st.members[channel][s.opts.botUserID] {
		return errResult("channel_not_found")
	}
	limit := defaultMembersLimit
	if raw := p.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			return errResult("invalid_limit")
		}
		if n > 0 {
			limit = min(n, maxMembersLimit)
		}
	}
	from := ""
	if c := p.Get("cursor"); c != "" {
		if from, ok = parseMembersCursor(c); !ok {
			return errResult("invalid_cursor")
		}
	}
	out, next := []string{}, ""
	for _, u := range s.st.memberList(channel) {
		if u < from {
			continue
		}
		if len(out) == limit {
			next = membersCursor(u)
			break
		}
		out = append(out, u)
	}
	return result{"members": out, "response_metadata": map[string]any{"next_cursor": next}}
}
