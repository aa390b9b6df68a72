package webconsole

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

// Knowledge is the knowledge base as the Knowledge page reads and changes
// it (kb.Base): the same checks as /kb in chat — the file cap, the scope
// cap, and for URLs the guarded fetcher's rules on where it may go.
type Knowledge interface {
	// Ready is nil when the knowledge base can be used, else why not.
	Ready() error
	// Status says in one line how it searches.
	Status() string
	ListAll(ctx context.Context) ([]kb.Document, error)
	Document(ctx context.Context, id int64) (kb.Document, bool, error)
	Forget(ctx context.Context, id int64) error
	Add(ctx context.Context, doc kb.Document, contentType string, data []byte) (kb.Ingested, error)
	AddURL(ctx context.Context, doc kb.Document, url string) (kb.Ingested, error)
	Search(ctx context.Context, scopes []string, query string, k int) ([]kb.Result, error)
	// MaxFileBytes caps one document as received: uploads are refused
	// past it.
	MaxFileBytes() int64
}

// kbHits is how many passages a search on the page shows: more than the
// chat's top-K, since a person reads them here rather than a model.
const kbHits = 10

// uploadSlack is what a multipart form may hold beyond its file: the
// other fields and the parts' headers.
const uploadSlack = 64 << 10

// kbGroup is one scope's documents on the page.
type kbGroup struct {
	Scope, Label string
	Docs         []kbDoc
}

// kbDoc is a document as the page shows it.
type kbDoc struct {
	kb.Document
	Size, By string
}

// kbHit is a passage found, with its citation.
type kbHit struct {
	kb.Result
	Title, Scope string
}

// notes are what the page says after an add, by outcome: the URL names
// only the outcome, so no one can make the page say anything else.
var notes = map[string]string{
	string(kb.Added):     "Added.",
	string(kb.Replaced):  "Replaced: the same source had other content.",
	string(kb.Unchanged): "Unchanged: that source is there already with the same content.",
	string(kb.Duplicate): "Not added again: the same content is there already under another source.",
	"removed":            "Removed.",
}

// knowledgePage lists the documents by scope (?scope= narrows to one), a
// page at a time (?page=N), and searches them (?q=) in the scope chosen
// or in all.
func (s *Server) knowledgePage(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	data := map[string]any{"Title": "Knowledge base", "Nav": "kb"}
	k := s.cfg.Knowledge
	if k == nil {
		data["Off"] = "The knowledge base is off in this Parley."
		s.render(w, r, http.StatusOK, "kb", who, data)
		return
	}
	if err := k.Ready(); err != nil {
		data["Off"] = err.Error()
		s.render(w, r, http.StatusOK, "kb", who, data)
		return
	}
	ctx, q := r.Context(), r.URL.Query()
	all, err := k.ListAll(ctx)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	// Operator first, then spaces, then people's; the store's order (oldest
	// first) within a scope, so documents stay put as others are added.
	slices.SortStableFunc(all, func(a, b kb.Document) int {
		return cmp.Or(cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope)), strings.Compare(a.Scope, b.Scope))
	})
	scopes := []string{bot.OperatorScope().Key()}
	for _, d := range all {
		if !slices.Contains(scopes, d.Scope) {
			scopes = append(scopes, d.Scope)
		}
	}
	scope := q.Get("scope")
	docs := all
	if scope != "" {
		docs = slices.DeleteFunc(slices.Clone(all), func(d kb.Document) bool { return d.Scope != scope })
	}
	page := max(atoi(q.Get("page")), 1)
	from := min((page-1)*pageSize, len(docs))
	shown := docs[from:min(from+pageSize, len(docs))]
	var groups []kbGroup
	for _, d := range shown {
		if len(groups) == 0 || groups[len(groups)-1].Scope != d.Scope {
			groups = append(groups, kbGroup{Scope: d.Scope, Label: scopeLabel(d.Scope)})
		}
		g := &groups[len(groups)-1]
		g.Docs = append(g.Docs, kbDoc{Document: d, Size: kb.Size(d.Bytes), By: cmp.Or(d.AddedByName, d.AddedBy)})
	}
	if query := strings.TrimSpace(q.Get("q")); query != "" {
		in := scopes
		if scope != "" {
			in = []string{scope}
		}
		hits, err := s.search(ctx, in, query, all)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Query"], data["Hits"] = query, hits
	}
	keep := url.Values{}
	for name, v := range map[string]string{"scope": scope, "q": q.Get("q")} {
		if v != "" {
			keep.Set(name, v)
		}
	}
	at := func(p int) string {
		keep.Set("page", strconv.Itoa(p))
		return "/kb?" + keep.Encode()
	}
	if page > 1 {
		data["Earlier"] = at(page - 1)
	}
	if from+pageSize < len(docs) {
		data["Later"] = at(page + 1)
	}
	data["Groups"], data["Scopes"], data["Scope"], data["Count"] = groups, scopes, scope, len(docs)
	data["Status"], data["Cap"] = k.Status(), kb.Size(k.MaxFileBytes())
	data["Note"] = notes[q.Get("done")]
	s.render(w, r, http.StatusOK, "kb", who, data)
}

// search finds the passages of scopes for query, each with the title and
// scope of its document (one of docs).
func (s *Server) search(ctx context.Context, scopes []string, query string, docs []kb.Document) ([]kbHit, error) {
	found, err := s.cfg.Knowledge.Search(ctx, scopes, query, kbHits)
	if err != nil {
		return nil, err
	}
	hits := make([]kbHit, 0, len(found))
	for _, f := range found {
		h := kbHit{Result: f, Title: f.Source}
		if i := slices.IndexFunc(docs, func(d kb.Document) bool { return d.ID == f.DocID }); i >= 0 {
			h.Title, h.Scope = docs[i].Title, docs[i].Scope
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// addDocument adds a document to a scope (the operator's unless the form
// names another), from an uploaded file or a URL. The URL goes through
// the knowledge base's fetcher, whose rules on where it may go (no
// private addresses) stand here as in chat.
func (s *Server) addDocument(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	k := s.cfg.Knowledge
	if k == nil {
		s.fail(w, r, http.StatusNotFound, "The knowledge base is off in this Parley.")
		return
	}
	scope := cmp.Or(strings.TrimSpace(r.PostFormValue("scope")), bot.OperatorScope().Key())
	if !who.Admin {
		// A person adds to their own private documents, whatever the
		// form says.
		scope = personScope(who.User)
	}
	if !validScope(scope) {
		s.fail(w, r, http.StatusBadRequest, fmt.Sprintf("%q is not a scope: operator, space:<platform>:<id> or person:<platform>:<id>.", scope))
		return
	}
	doc := kb.Document{Scope: scope, AddedBy: who.User, Title: strings.TrimSpace(r.PostFormValue("title"))}
	ctx := r.Context()
	var (
		ing    kb.Ingested
		err    error
		detail string
	)
	if link := strings.TrimSpace(r.PostFormValue("url")); link != "" {
		detail = link
		ing, err = k.AddURL(ctx, doc, link)
	} else {
		var data []byte
		var header *multipart.FileHeader
		data, header, err = s.upload(r, k.MaxFileBytes())
		if err != nil {
			s.refuse(w, r, err)
			return
		}
		doc.Source = path.Base(header.Filename)
		ing, err = k.Add(ctx, doc, header.Header.Get("Content-Type"), data)
	}
	if err != nil {
		s.refuse(w, r, err)
		return
	}
	if ing.Outcome == kb.Added || ing.Outcome == kb.Replaced {
		s.record(ctx, who, "kb.add", scope, cmp.Or(detail, ing.Doc.Title))
	}
	http.Redirect(w, r, s.afterDocument(who, scope, string(ing.Outcome)), http.StatusSeeOther)
}

// personScope is the scope of a person's private documents: what they
// add in a direct chat, and in the console.
func personScope(user string) string { return bot.Scope{Kind: bot.ScopePerson, ID: user}.Key() }

// afterDocument is where a document's change leads: an admin back to the
// Knowledge page's scope, a person to their own page; done names the
// outcome (notes).
func (s *Server) afterDocument(who *signin.Session, scope, done string) string {
	if !who.Admin {
		return "/?" + url.Values{"done": {done}}.Encode() + "#documents"
	}
	return "/kb?" + url.Values{"scope": {scope}, "done": {done}}.Encode()
}

// errNoFile means the form had neither a file nor a URL.
var errNoFile = errors.New("choose a file to upload, or give a URL")

// upload reads the form's file, refusing one over max before reading it.
func (s *Server) upload(r *http.Request, max int64) ([]byte, *multipart.FileHeader, error) {
	f, header, err := r.FormFile("file")
	if err != nil || header.Filename == "" {
		return nil, nil, errNoFile
	}
	defer f.Close()
	if header.Size > max {
		return nil, nil, fmt.Errorf("%w: %s is %s, over the cap of %s per document", kb.ErrTooLarge, header.Filename, kb.Size(header.Size), kb.Size(max))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, err
	}
	return data, header, nil
}

// refuse says why a document was not added: what people can act on
// (too large, no such file, a URL that may not be fetched, a format not
// read) in words; the status says whose side it was.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, kb.ErrTooLarge):
		s.fail(w, r, http.StatusRequestEntityTooLarge, "Not added: "+err.Error()+".")
	case errors.Is(err, kb.ErrNoKeywordIndex):
		s.fail(w, r, http.StatusServiceUnavailable, err.Error())
	default:
		// A fetch refused or failed, a file that has no text: the
		// knowledge base's own words, as /kb add gives them in chat.
		s.fail(w, r, http.StatusBadRequest, "Not added: "+err.Error()+".")
	}
}

// removeDocument removes a document with its passages.
func (s *Server) removeDocument(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	k := s.cfg.Knowledge
	if k == nil {
		s.fail(w, r, http.StatusNotFound, "The knowledge base is off in this Parley.")
		return
	}
	ctx := r.Context()
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var doc kb.Document
	found := false
	if err == nil {
		doc, found, err = k.Document(ctx, id)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	if !found {
		s.fail(w, r, http.StatusNotFound, "There is no such document.")
		return
	}
	if !who.Admin && doc.Scope != personScope(who.User) {
		s.fail(w, r, http.StatusForbidden, "That document is not yours to remove.")
		return
	}
	if err := k.Forget(ctx, id); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.record(ctx, who, "kb.remove", strconv.FormatInt(id, 10), doc.Scope+": "+doc.Title)
	http.Redirect(w, r, s.afterDocument(who, doc.Scope, "removed"), http.StatusSeeOther)
}

// validScope reports whether key is a document scope's stored form
// (bot.Scope.Key): the operator's, a space's or a person's.
func validScope(key string) bool {
	if key == bot.OperatorScope().Key() {
		return true
	}
	kind, rest, _ := strings.Cut(key, ":")
	platform, id, _ := strings.Cut(rest, ":")
	return (kind == string(bot.ScopeSpace) || kind == string(bot.ScopePerson)) && platform != "" && id != ""
}

// scopeRank orders scopes: the operator's, spaces, people's.
func scopeRank(key string) int {
	switch {
	case key == bot.OperatorScope().Key():
		return 0
	case strings.HasPrefix(key, string(bot.ScopeSpace)+":"):
		return 1
	}
	return 2
}

// scopeLabel says whose a scope is.
func scopeLabel(key string) string {
	switch scopeRank(key) {
	case 0:
		return "The operator's: everyone sees these"
	case 1:
		return "Space " + strings.TrimPrefix(key, string(bot.ScopeSpace)+":")
	}
	return "Person " + strings.TrimPrefix(key, string(bot.ScopePerson)+":") + " (their private chats)"
}
