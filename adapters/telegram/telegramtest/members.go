package telegramtest

import (
	"context"
	"net/http"
)

// Chat membership, for getChatMember. A person who posts in a group is a
// member of it (Post), as only members can; the bot is a member of every
// group. Join, Leave, Kick and SetMemberStatus change that for tests. A
// private chat's members are its person and the bot.

// MemberStatus is a ChatMember's status, as Telegram names it.
type MemberStatus string

// The statuses getChatMember answers. A restricted person is a member
// while is_member is true: Leave keeps them restricted with is_member
// false, as Telegram does.
const (
	StatusCreator       MemberStatus = "creator"
	StatusAdministrator MemberStatus = "administrator"
	StatusMember        MemberStatus = "member"
	StatusRestricted    MemberStatus = "restricted"
	StatusLeft          MemberStatus = "left"
	StatusKicked        MemberStatus = "kicked"
)

// membership is one person's standing in a group.
type membership struct {
	status   MemberStatus
	isMember bool // restricted only: still in the chat
}

func (m membership) in() bool {
	switch m.status {
	case StatusCreator, StatusAdministrator, StatusMember:
		return true
	case StatusRestricted:
		return m.isMember
	}
	return false
}

// memberLocked returns u's membership of c: a private chat's person and
// the bot are members, anyone without a record left (or never came).
func (s *Server) memberLocked(c *chat, u *user) membership {
	if m, ok := c.members[u.id]; ok {
		return m
	}
	if u == s.world.bot || c.private() && c.user == u {
		return membership{status: StatusMember}
	}
	return membership{status: StatusLeft}
}

func (c *chat) setMember(id int64, m membership) {
	if c.members == nil {
		c.members = map[int64]membership{}
	}
	c.members[id] = m
}

// joinLocked makes u a member of group c unless they are one already: a
// restricted person comes back restricted, anyone else as a member.
func (s *Server) joinLocked(c *chat, u *user) {
	if c.private() {
		return
	}
	m := s.memberLocked(c, u)
	switch {
	case m.status == StatusRestricted:
		m.isMember = true
	case !m.in():
		m = membership{status: StatusMember}
	}
	c.setMember(u.id, m)
}

// Join makes userID a member of chatID (a restricted person stays
// restricted), adding the chat and user when unknown.
func (s *Server) Join(chatID, userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.joinLocked(s.world.chat(chatID), s.world.user(userID))
	s.notifyLocked()
}

// Leave makes userID leave chatID: status "left", or "restricted" with
// is_member false for a restricted person. The bot leaving a group makes
// getChatMember there answer 403.
func (s *Server) Leave(chatID, userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, u := s.world.chat(chatID), s.world.user(userID)
	m := s.memberLocked(c, u)
	if m.status == StatusRestricted {
		m.isMember = false
	} else {
		m = membership{status: StatusLeft}
	}
	c.setMember(u.id, m)
	s.notifyLocked()
}

// Kick bans userID from chatID: status "kicked", until unbanned by
// SetMemberStatus. A banned bot gets 403 from getChatMember there.
func (s *Server) Kick(chatID, userID int64) {
	s.SetMemberStatus(chatID, userID, StatusKicked)
}

// SetMemberStatus sets userID's status in chatID; StatusRestricted makes
// them a restricted member (is_member true).
func (s *Server) SetMemberStatus(chatID, userID int64, status MemberStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, u := s.world.chat(chatID), s.world.user(userID)
	c.setMember(u.id, membership{status: status, isMember: status == StatusRestricted})
	s.notifyLocked()
}

// Member reports userID's status in chatID, and whether getChatMember
// counts them in (is_member for a restricted person).
func (s *Server) Member(chatID, userID int64) (MemberStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.world.chats[chatID]
	u, known := s.world.users[userID]
	if userID == s.world.bot.id {
		u, known = s.world.bot, true
	}
	if !ok || !known {
		return StatusLeft, false
	}
	m := s.memberLocked(c, u)
	return m.status, m.in()
}

// getChatMember answers a ChatMember object: status and user, and the
// fields of that status (ChatMemberOwner, …Administrator, …Member,
// …Restricted, …Left, …Banned). A user id Telegram never saw is 400 "user
// not found"; a group the bot left or was banned from is 403.
func (s *Server) getChatMember(_ context.Context, p params) (any, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, err
	}
	id, err := p.int64("user_id")
	if err != nil || id <= 0 {
		return nil, badRequest("invalid user_id specified")
	}
	if !c.private() {
		switch s.memberLocked(c, s.world.bot).status {
		case StatusKicked:
			return nil, &apiError{Code: http.StatusForbidden, Description: "Forbidden: bot was kicked from the supergroup chat"}
		case StatusLeft:
			return nil, &apiError{Code: http.StatusForbidden, Description: "Forbidden: bot is not a member of the supergroup chat"}
		}
	}
	u, known := s.world.users[id]
	if id == s.world.bot.id {
		u, known = s.world.bot, true
	}
	if !known {
		return nil, badRequest("user not found")
	}
	m := s.memberLocked(c, u)
	obj := map[string]any{"status": m.status, "user": u.wire()}
	switch m.status {
	case StatusCreator:
		obj["is_anonymous"] = false
	case StatusAdministrator:
		for _, k := range []string{"can_be_edited", "is_anonymous", "can_promote_members", "can_post_stories", "can_edit_stories", "can_delete_stories"} {
			obj[k] = false
		}
		for _, k := range []string{"can_manage_chat", "can_delete_messages", "can_manage_video_chats", "can_restrict_members",
			"can_change_info", "can_invite_users", "can_pin_messages"} {
			obj[k] = true
		}
		if c.isForum {
			obj["can_manage_topics"] = true
		}
	case StatusRestricted:
		obj["is_member"] = m.isMember
		for _, k := range []string{"can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
			"can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
			"can_add_web_page_previews", "can_change_info", "can_invite_users", "can_pin_messages", "can_manage_topics"} {
			obj[k] = false
		}
		obj["until_date"] = 0
	case StatusKicked:
		obj["until_date"] = 0 // banned forever
	}
	return obj, nil
}
