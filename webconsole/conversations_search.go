package webconsole

import (
	"cmp"
	"errors"
	"net/http"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole/signin"
)

// maxQuery bounds what the search box passes on, in bytes: words enough
// for any question, and a query the index answers quickly.
const maxQuery = 500

// searchConversations answers the Conversations page's search box (?q=):
// the messages holding its words, best first, a page at a time (?page=N),
// in every conversation for an admin and in a person's own for them —
// the rule the list keeps (ConversationFilter.User).
func (s *Server) searchConversations(w http.ResponseWriter, r *http.Request, who *signin.Session, q string, page int) {
	data := map[string]any{"Title": "Conversations", "Nav": "conversations", "Query": q, "Page": page}
	if len(q) > maxQuery {
		q = strings.ToValidUTF8(q[:maxQuery], "")
	}
	f := store.MessageSearch{Query: q, Limit: pageSize + 1, Offset: (page - 1) * pageSize}
	if !who.Admin {
		f.User = who.User
	}
	hits, err := s.cfg.Data.SearchMessages(r.Context(), f)
	switch {
	case errors.Is(err, store.ErrNoMessageIndex):
		data["Off"] = "Searching conversations is off in this Parley: it was built without SQLite FTS5."
	case err != nil:
		s.serverError(w, r, err)
		return
	default:
		data["Hits"], data["More"] = hits[:min(len(hits), pageSize)], len(hits) > pageSize
	}
	s.render(w, r, http.StatusOK, "conversations", who, data)
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
