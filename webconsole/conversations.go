package webconsole

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
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
// own for them, newest first, a page at a time (?page=N), by place
// (?platform=, ?chat=) and, for an admin, by person (?person=); with ?q=
// it searches their messages instead (conversations_search.go).
func (s *Server) conversations(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	q := r.URL.Query()
	page := min(max(atoi(q.Get("page")), 1), maxPage)
	f := store.ConversationFilter{Platform: strings.TrimSpace(q.Get("platform")), Chat: strings.TrimSpace(q.Get("chat")),
		User: strings.TrimSpace(q.Get("person"))}
	if !who.Admin {
		f.User = who.User // a person's own, whatever the URL says
	}
	words := strings.TrimSpace(q.Get("q"))
	// The filters and the words stay in the page links.
	keep := url.Values{}
	for name, v := range map[string]string{"q": words, "platform": f.Platform, "chat": f.Chat, "person": q.Get("person")} {
		if v != "" && (name != "person" || who.Admin) {
			keep.Set(name, v)
		}
	}
	data := map[string]any{"Title": "Conversations", "Nav": "conversations", "Page": page, "Filter": f, "Person": keep.Get("person")}
	var more bool
	if words != "" {
		var ok bool
		if more, ok = s.searchConversations(w, r, data, f, words, page); !ok {
			return
		}
	} else {
		// One more than a page says whether there is a next one; the
		// store skips the pages before (Offset), counting nothing of them.
		f.Limit, f.Offset = pageSize+1, (page-1)*pageSize
		list, err := s.cfg.Data.Conversations(r.Context(), f)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Rows"], more = list[:min(len(list), pageSize)], len(list) > pageSize
	}
	at := func(p int) string {
		keep.Set("page", strconv.Itoa(p))
		return "/conversations?" + keep.Encode()
	}
	if page > 1 {
		data["Newer"] = at(page - 1)
	}
	if more {
		data["Older"] = at(page + 1)
	}
	s.render(w, r, http.StatusOK, "conversations", who, data)
}

// conversation shows one transcript.
func (s *Server) conversation(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	c, entries, ok := s.transcript(w, r, who)
	if !ok {
		return
	}
	asked, costs, err := s.transcriptExtras(r.Context(), c.ID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "conversation", who, map[string]any{
		"Title": "Conversation " + cut(c.ID, 8), "Nav": "conversations", "Conversation": c, "Entries": turnsOf(entries, asked, costs),
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
