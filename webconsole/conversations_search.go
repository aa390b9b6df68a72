package webconsole

import (
	"cmp"
	"errors"
	"net/http"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
)

// maxQuery bounds what the search box passes on, in bytes: words enough
// for any question, and a query the index answers quickly.
const maxQuery = 500

// searchConversations answers the Conversations page's search box (?q=)
// into data: the messages holding its words, best first, a page at a
// time, in the conversations f keeps — every one for an admin, a
// person's own for them (the list's rule, ConversationFilter.User), of
// one platform and chat when named. more says there is a further page;
// ok is false when the answer is written already.
func (s *Server) searchConversations(w http.ResponseWriter, r *http.Request, data map[string]any, f store.ConversationFilter, q string, page int) (more, ok bool) {
	data["Query"] = q
	if len(q) > maxQuery {
		q = strings.ToValidUTF8(q[:maxQuery], "")
	}
	m := store.MessageSearch{Query: q, User: f.User, Limit: pageSize + 1, Offset: (page - 1) * pageSize}
	if f.Platform != "" {
		// A place names its platform; a chat alone is not one.
		m.Places = []store.Place{{Platform: f.Platform, Chat: f.Chat}}
	}
	hits, err := s.cfg.Data.SearchMessages(r.Context(), m)
	switch {
	case errors.Is(err, store.ErrNoMessageIndex):
		data["Off"] = "Searching conversations is off in this Parley: it was built without SQLite FTS5."
	case err != nil:
		s.serverError(w, r, err)
		return false, false
	default:
		data["Hits"], more = hits[:min(len(hits), pageSize)], len(hits) > pageSize
	}
	return more, true
}

// authorOf names who wrote a hit for people: Parley, or the person by
// name and key as far as they are known.
func authorOf(h store.MessageHit) string {
	if h.Role != llm.RoleUser {
		return "Parley"
	}
	who := cmp.Or(h.AuthorName, h.AuthorKey, "Person")
	if h.AuthorName != "" && h.AuthorKey != "" {
		who += " (" + h.AuthorKey + ")"
	}
	return who
}
