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

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

// pageNames are the templates under templates/ that are whole pages,
// each rendered inside layout.html.
var pageNames = []string{"login", "message", "home", "conversations", "conversation", "approvals", "audit", "sessions", "usage", "people", "person", "time", "kb"}

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
	"entry":  func(target, text, csrf string) memoryEntry { return memoryEntry{target, text, csrf} },
	// segment is a person's key as one path segment (/people/{key}).
	"segment": url.PathEscape,
	// Money and tokens read as in chat (/usage, /status).
	"dollars":   bot.Dollars,
	"thousands": bot.Thousands,
	"add":       func(a, b int) int { return a + b },
	"tokens":    bot.Thousands,
	"day":       func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
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
type memoryEntry struct{ Target, Text, CSRF string }

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
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, "layout.html", v); err != nil {
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
