package webconsole

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

// pageNames are the templates under templates/ that are whole pages,
// each rendered inside layout.html.
var pageNames = []string{"login", "message", "home", "conversations", "conversation", "approvals", "audit", "sessions", "usage", "people", "person", "time", "kb", "learning", "learning-skill"}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"short": func(id string) string { return cut(id, 8) },
	"upper": strings.ToUpper,
	"prev":  func(n int) int { return n - 1 },
	"next":  func(n int) int { return n + 1 },
	"role":  roleName,
	// author names who wrote a search hit.
	"author": authorOf,
	"left":   left,
	"entry":  func(target, text, csrf string, edit bool) memoryEntry { return memoryEntry{target, text, csrf, edit} },
	"note": func(scope, note, label, text, csrf string) memoNote {
		return memoNote{Scope: scope, Note: note, Label: label, Text: text, CSRF: csrf}
	},
	// segment is a person's key as one path segment (/people/{key}).
	"segment": url.PathEscape,
	// Money and tokens read as in chat (/usage, /status).
	"dollars":   bot.Dollars,
	"costKey":   bot.CostKey,
	"thousands": bot.Thousands,
	"add":       func(a, b int) int { return a + b },
	"tokens":    bot.Thousands,
	"day":       func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
	"latency":   latency,
	"size":      kb.Size,
	// percent is a rate (0 to 1) for people: 0.25 → 25%.
	"percent":        func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
	"reflectionCost": reflectionCost,
	// num is an SVG coordinate: a tenth of a unit is finer than a pixel.
	"num": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
}

// parsePages parses each page with the layout.
func parsePages() (map[string]*template.Template, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("webconsole: layout: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.Must(layout.Clone()).ParseFS(templateFiles, path.Join("templates", name+".html"))
		if err != nil {
			return nil, fmt.Errorf("webconsole: page %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// memoryEntry is one entry of a person's memory with what its Forget
// button's form needs.
type memoryEntry struct {
	Target, Text, CSRF string
	Edit               bool // the console can edit memory (Config.VetMemory)
}

// memoNote is one note of a scope's self-memo with what its edit form
// needs.
type memoNote struct{ Scope, Note, Label, Text, CSRF string }

// view is what every page's template gets.
type view struct {
	Title string
	// Who is the signed-in session; nil on the sign-in pages.
	Who *signin.Session
	// CSRF is the token the page's forms carry.
	CSRF string
	// Nav is the current section, for the menu.
	Nav  string
	Data any
}

// render writes page with data, for who (nil: not signed in). Rendering
// goes to a buffer first, so a template error is a clean 500, not half a
// page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, who *signin.Session, data map[string]any) {
	v := view{Who: who, Data: data}
	if who != nil {
		v.CSRF = who.CSRF
	}
	if t, ok := data["Title"].(string); ok {
		v.Title = t
	}
	if n, ok := data["Nav"].(string); ok {
		v.Nav = n
	}
	pages, err := s.pages()
	if err != nil {
		s.cfg.Logger.Error("console: parse the pages", "err", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := pages[page].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		s.cfg.Logger.Error("console: render", "page", page, "err", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail shows a short page saying what went wrong, with status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, text string) {
	s.render(w, r, status, "message", nil, map[string]any{"Title": http.StatusText(status), "Text": text})
}

// serverError logs err and shows a page that says nothing of it.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	s.cfg.Logger.Error("console", "path", r.URL.Path, "err", err)
	s.fail(w, r, http.StatusInternalServerError, "Something went wrong on Parley's side; the log says what.")
}

// staticNames lists the embedded assets, for tests.
func staticNames() ([]string, error) {
	var names []string
	err := fs.WalkDir(staticFiles, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "static/"))
		}
		return err
	})
	return names, err
}

// latency is a measured duration as people read one: "320 ms", "1.42 s",
// "2 min 5 s"; "—" for none.
func latency(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
	d = d.Round(time.Second)
	return strconv.Itoa(int(d/time.Minute)) + " min " + strconv.Itoa(int(d%time.Minute/time.Second)) + " s"
}
