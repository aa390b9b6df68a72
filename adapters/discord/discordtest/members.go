package discordtest

import (
	"net/http"
	"strconv"
)

// codeUnknownMember is Discord's 10007 Unknown Member.
const codeUnknownMember = 10007

// getMember answers GET /guilds/{guild.id}/members/{user.id}: the member
// object (user, roles, joined_at…, no permissions: those come only with
// interactions), or Discord's 404 for an unknown guild (10004), an unknown
// user (10013) or a user who is no member (10007).
func (s *Server) getMember(r *request) reply {
	guildID, userID := r.params[0], r.params[1]
	errs := formErrors{}
	for _, p := range []struct{ field, id string }{{"guild_id", guildID}, {"user_id", userID}} {
		if _, err := strconv.ParseUint(p.id, 10, 64); err != nil {
			errs.add(p.field, "NUMBER_TYPE_COERCE", "Value \""+p.id+"\" is not snowflake.")
		}
	}
	if e := errs.apiError(); e != nil {
		return fail(e)
	}
	g, ok := s.w.guilds[guildID]
	if !ok {
		return fail(errBody(http.StatusNotFound, codeUnknownGuild, "Unknown Guild"))
	}
	if _, known := s.w.users[userID]; !known {
		return fail(errBody(http.StatusNotFound, codeUnknownUser, "Unknown User"))
	}
	if !s.w.isMember(g, userID) {
		return fail(errBody(http.StatusNotFound, codeUnknownMember, "Unknown Member"))
	}
	m := s.w.memberJSON(userID, true, g.joinedAt(userID))
	m.Permissions = ""
	return okJSON(m)
}
