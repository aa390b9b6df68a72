package webconsole

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/parleybot/parley/export"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole/signin"
)

// pageSize is how many rows a list page shows.
const pageSize = 50

// maxPage bounds ?page=N, so that its offset stays a small number.
const maxPage = 1_000_000

// conversations lists conversations: every one for an admin, a person's
// own for them, newest first, a page at a time (?page=N); with ?q= it
// searches them instead (conversations_search.go).
func (s *Server) conversations(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	page := min(max(atoi(r.URL.Query().Get("page")), 1), maxPage)
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		s.searchConversations(w, r, who, q, page)
		return
	}
	// One more than a page says whether there is a next one; the store
	// skips the pages before (Offset), counting nothing of them.
	f := store.ConversationFilter{Limit: pageSize + 1, Offset: (page - 1) * pageSize}
	if !who.Admin {
		f.User = who.User
	}
	list, err := s.cfg.Data.Conversations(r.Context(), f)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "conversations", who, map[string]any{
		"Title": "Conversations", "Nav": "conversations", "Rows": list[:min(len(list), pageSize)],
		"Page": page, "More": len(list) > pageSize,
	})
}

// conversation shows one transcript.
func (s *Server) conversation(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	c, entries, ok := s.transcript(w, r, who)
	if !ok {
		return
	}
	s.render(w, r, http.StatusOK, "conversation", who, map[string]any{
		"Title": "Conversation " + cut(c.ID, 8), "Nav": "conversations", "Conversation": c, "Entries": turnsOf(entries),
	})
}

// exportConversation sends one conversation as a Markdown or JSON file
// (?format=json), as parley export writes it.
func (s *Server) exportConversation(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "markdown"
	}
	if format != "markdown" && format != "json" {
		s.fail(w, r, http.StatusBadRequest, "Export as markdown or json.")
		return
	}
	c, entries, ok := s.transcript(w, r, who)
	if !ok {
		return
	}
	x := export.New(c, entries, s.cfg.Now())
	var buf bytes.Buffer
	var err error
	name, kind := "conversation-"+cut(c.ID, 8)+".md", "text/markdown; charset=utf-8"
	if format == "json" {
		name, kind = "conversation-"+cut(c.ID, 8)+".json", "application/json"
		err = export.WriteJSON(&buf, x)
	} else {
		err = x.Markdown(&buf)
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.record(r.Context(), who, "conversation.export", c.ID, format)
	w.Header().Set("Content-Type", kind)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, _ = buf.WriteTo(w)
}

// transcript is the conversation the path names with its messages: for an
// admin any, for a person only theirs (they started it or took part);
// anyone else gets 403, whether it exists or not. ok is false when the
// answer is written already.
func (s *Server) transcript(w http.ResponseWriter, r *http.Request, who *signin.Session) (store.Conversation, []store.TranscriptEntry, bool) {
	id := r.PathValue("id")
	f := store.ConversationFilter{Prefix: id, Limit: 2}
	if !who.Admin {
		f.User = who.User
	}
	list, err := s.cfg.Data.Conversations(r.Context(), f)
	if err != nil {
		s.serverError(w, r, err)
		return store.Conversation{}, nil, false
	}
	if len(list) != 1 || list[0].ID != id {
		s.fail(w, r, http.StatusForbidden, "There is no conversation of yours with that id.")
		return store.Conversation{}, nil, false
	}
	entries, err := s.cfg.Data.Transcript(r.Context(), id)
	if err != nil {
		s.serverError(w, r, err)
		return store.Conversation{}, nil, false
	}
	return list[0], entries, true
}

// entry is a transcript message as the page shows it.
type entry struct {
	store.TranscriptEntry
	// Calls are an answer's tool calls with their arguments indented.
	Calls []call
}

type call struct {
	Name, Arguments string
}

// turnsOf prepares entries for the page.
func turnsOf(entries []store.TranscriptEntry) []entry {
	out := make([]entry, 0, len(entries))
	for _, e := range entries {
		v := entry{TranscriptEntry: e}
		for _, c := range e.ToolCalls {
			v.Calls = append(v.Calls, call{Name: c.Name, Arguments: indent(c.Arguments)})
		}
		out = append(out, v)
	}
	return out
}

// indent is JSON arguments indented for reading; as written when they
// are not JSON.
func indent(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// roleName names a message's role for people.
func roleName(e store.TranscriptEntry) string {
	switch e.Role {
	case llm.RoleUser:
		if e.Author != "" {
			return e.Author
		}
		return "Person"
	case llm.RoleAssistant:
		return "Parley"
	case llm.RoleTool:
		return "Tool " + e.ToolName
	}
	return strings.ToUpper(string(e.Role))
}

// atoi is s as a number, 0 when it is none.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}
