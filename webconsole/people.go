package webconsole

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole/signin"
)

// The People page (admins): the people Parley knows, and for one of them
// all it keeps — their memory, reminders and schedules, private documents
// and conversations — with the erasing of their memory for a reason the
// audit log keeps (docs/operations.md, "A person's data").

// Bounds of an erase's reason: enough to say why, short enough for the log.
const (
	minReason = 3
	maxReason = 500
)

// people lists the people Parley knows by key, or those ?q= finds (a
// key's start, a part of a name), a page at a time (?after=KEY).
func (s *Server) people(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	q := r.URL.Query()
	f := store.UserFilter{Search: strings.TrimSpace(q.Get("q")), After: q.Get("after")}
	// One more than a page says whether there is a next one.
	rows, err := s.cfg.Data.Users(r.Context(), f, pageSize+1)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	var next string
	if len(rows) > pageSize {
		rows = rows[:pageSize]
		next = rows[pageSize-1].Key
	}
	s.render(w, r, http.StatusOK, "people", who, map[string]any{
		"Title": "People", "Nav": "people", "Rows": rows, "Search": f.Search, "Next": next, "Later": f.After != "",
	})
}

// person shows what Parley keeps about one person.
func (s *Server) person(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	u, ok := s.known(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	mem, err := s.cfg.Data.Memory(ctx, u.Key)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	items, err := s.cfg.Data.ItemsOf(ctx, u.Key)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	docs, err := s.cfg.Data.Documents(ctx, []string{personScope(u.Key)})
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	convs, err := s.cfg.Data.Conversations(ctx, store.ConversationFilter{User: u.Key, Limit: pageSize})
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	data := map[string]any{
		"Title": personName(u), "Nav": "people", "Person": u, "Memory": mem,
		"Items": items, "Documents": docs, "Conversations": convs, "MinReason": minReason, "MaxReason": maxReason,
	}
	// After an erase (its redirect): how much went.
	if n, err := strconv.Atoi(r.URL.Query().Get("erased")); err == nil {
		data["Said"] = "Erased " + plural(n, "memory entry") + "; the audit log keeps the reason."
	}
	s.render(w, r, http.StatusOK, "person", who, data)
}

// erase erases what Parley remembers about one person (bot.EraseMemory,
// as parley memory erase does), for the reason the form gives, which the
// audit log keeps: the record of a person's request answered. Their
// reminders, documents and conversations are not touched.
func (s *Server) erase(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	u, ok := s.known(w, r)
	if !ok {
		return
	}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if n := utf8.RuneCountInString(reason); n < minReason || n > maxReason {
		s.fail(w, r, http.StatusBadRequest, "Say why this person's memory is erased, in "+
			strconv.Itoa(minReason)+" to "+strconv.Itoa(maxReason)+" characters: the audit log keeps it.")
		return
	}
	n, err := bot.EraseMemory(r.Context(), s.cfg.Data, u.Key)
	if err == nil || n > 0 {
		// Recorded too when one list went and the other failed: the
		// profile erased stays erased, and the log must say why.
		s.record(r.Context(), who, "person.erase", u.Key, reason)
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, "/people/"+url.PathEscape(u.Key)+"?erased="+strconv.Itoa(n), http.StatusSeeOther)
}

// known is the person the path names; a 404 page when Parley does not
// know them. ok is false when the answer is written already.
func (s *Server) known(w http.ResponseWriter, r *http.Request) (store.User, bool) {
	key := r.PathValue("key")
	var list []store.User
	if key != "" { // an empty Key filters nothing: everyone
		var err error
		if list, err = s.cfg.Data.Users(r.Context(), store.UserFilter{Key: key}, 1); err != nil {
			s.serverError(w, r, err)
			return store.User{}, false
		}
	}
	if len(list) == 0 {
		s.fail(w, r, http.StatusNotFound, "Parley knows no one with the key "+strconv.Quote(key)+".")
		return store.User{}, false
	}
	return list[0], true
}

// personName is how the page calls u: their name with their key, or
// their key.
func personName(u store.User) string {
	if u.Name == "" {
		return u.Key
	}
	return u.Name + " (" + u.Key + ")"
}
