package webconsole_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/tools/webfetch"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole"
)

// kbCap is the test knowledge base's cap on one document.
const kbCap = 4 << 10

// guardedFetcher is cmd/parley's document fetcher: web_fetch's guarded
// client, which refuses private addresses.
type guardedFetcher struct{ f *webfetch.Fetcher }

func (g guardedFetcher) FetchDocument(ctx context.Context, url string, max int64) (kb.Fetched, error) {
	got, err := g.f.Fetch(ctx, url, max)
	if err != nil {
		return kb.Fetched{}, err
	}
	return kb.Fetched{URL: got.URL, ContentType: got.ContentType, Body: got.Body}, nil
}

// newKBConsole is a console whose Knowledge page works on a real
// knowledge base over its SQLite store; the test is skipped in a build
// without FTS5, where the knowledge base is off.
func newKBConsole(t *testing.T) (*console, *kb.Base) {
	t.Helper()
	f, err := webfetch.NewFetcher(webfetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var base *kb.Base
	c := newConsoleWith(t, func(cfg *webconsole.Config, db *store.DB) {
		base = kb.New(kb.Config{Store: db, Fetcher: guardedFetcher{f}, MaxFileBytes: kbCap, Now: cfg.Now})
		cfg.Knowledge = base
	})
	if err := base.Ready(); err != nil {
		t.Skip(err)
	}
	return c, base
}

// doc adds a markdown document to scope and returns it.
func doc(t *testing.T, base *kb.Base, scope, source, text string) kb.Document {
	t.Helper()
	ing, err := base.Add(t.Context(), kb.Document{Scope: scope, Source: source, AddedBy: "operator"}, "text/markdown", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return ing.Doc
}

// upload posts /kb/add as a browser's multipart form: fields, and a file
// named name holding data unless name is "".
func (c *console) upload(t *testing.T, b *http.Client, fields map[string]string, name string, data []byte) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.http.URL+"/kb/add", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.http.URL)
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}

// kbAudit is the knowledge base's audit entries, newest first.
func (c *console) kbAudit(t *testing.T, action string) []bot.AuditEntry {
	t.Helper()
	log, err := c.db.AuditEntries(t.Context(), botFilter(action), 10)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

const (
	plants = "# Plants\n\nWater the ficus every Tuesday with half a litre.\n"
	space  = "space:slack:T1"
)

func TestConsoleKBListsByScope(t *testing.T) {
	c, base := newKBConsole(t)
	doc(t, base, "person:slack:UANA", "ana.md", "# Ana's notes\n\nThe bike lock code.\n")
	doc(t, base, space, "handbook.md", "# Handbook\n\nHolidays are booked in the tracker.\n")
	doc(t, base, "operator", "plants.md", plants)
	root := c.signIn(t, admin)
	code, body := c.get(t, root, "/kb")
	if code != http.StatusOK {
		t.Fatalf("GET /kb: %d\n%s", code, body)
	}
	for _, want := range []string{"<h1>Knowledge base</h1>", `aria-current="page">Knowledge</a>`,
		"Plants", "plants.md", "markdown", "Handbook", "Ana&#39;s notes", "Space slack:T1", "Person slack:UANA",
		"2026-12-06 12:00 UTC", `action="/kb/add"`, `enctype="multipart/form-data"`, "keyword-only search"} {
		if !strings.Contains(body, want) {
			t.Errorf("/kb lacks %q", want)
		}
	}
	// The operator's first, then spaces, then people's.
	if o, s, p := strings.Index(body, "plants.md"), strings.Index(body, "handbook.md"), strings.Index(body, "ana.md"); !(o < s && s < p) {
		t.Errorf("scopes out of order: operator %d, space %d, person %d", o, s, p)
	}
	_, body = c.get(t, root, "/kb?scope="+url.QueryEscape(space))
	if !strings.Contains(body, "handbook.md") || strings.Contains(body, "plants.md") || strings.Contains(body, "ana.md") {
		t.Errorf("filtered by scope:\n%s", body)
	}
}

func TestConsoleKBSearch(t *testing.T) {
	c, base := newKBConsole(t)
	doc(t, base, "operator", "plants.md", plants)
	doc(t, base, space, "handbook.md", "# Handbook\n\nHolidays are booked in the tracker.\n")
	root := c.signIn(t, admin)
	_, body := c.get(t, root, "/kb?q=ficus")
	for _, want := range []string{"Passages for “ficus”", "Water the ficus every Tuesday", "<cite>Plants</cite>", "plants.md, lines 1–3"} {
		if !strings.Contains(body, want) {
			t.Errorf("the search lacks %q:\n%s", want, body)
		}
	}
	// Scoped to another scope, the operator's passage is not searched.
	_, body = c.get(t, root, "/kb?q=ficus&scope="+url.QueryEscape(space))
	if strings.Contains(body, "Water the ficus") || !strings.Contains(body, "Nothing found in "+space) {
		t.Errorf("a search in %s found the operator's passage:\n%s", space, body)
	}
}

func TestConsoleKBUpload(t *testing.T) {
	c, base := newKBConsole(t)
	root := c.signIn(t, admin)
	token := c.csrf(t, root, "/kb")
	code, body := c.upload(t, root, map[string]string{"csrf": token, "scope": space}, "plants.md", []byte(plants))
	if code != http.StatusSeeOther {
		t.Fatalf("upload: %d\n%s", code, body)
	}
	docs, err := base.List(t.Context(), []string{space})
	if err != nil || len(docs) != 1 || docs[0].Title != "Plants" || docs[0].AddedBy != admin {
		t.Fatalf("%s holds %+v, %v", space, docs, err)
	}
	log := c.kbAudit(t, "kb.add")
	if len(log) != 1 || log[0].Target != space || log[0].Detail != "Plants" || log[0].Actor != admin || log[0].Via != "console" {
		t.Errorf("audit: %+v", log)
	}
	// Without a scope, the operator's.
	if code, _ := c.upload(t, root, map[string]string{"csrf": token}, "dogs.txt", []byte("Dogs are walked twice a day.")); code != http.StatusSeeOther {
		t.Fatalf("upload without a scope: %d", code)
	}
	if docs, _ := base.List(t.Context(), []string{"operator"}); len(docs) != 1 || docs[0].Source != "dogs.txt" {
		t.Errorf("the operator's: %+v", docs)
	}
	// A scope that is none.
	if code, _ := c.upload(t, root, map[string]string{"csrf": token, "scope": "everyone"}, "x.txt", []byte("x")); code != http.StatusBadRequest {
		t.Errorf("a made-up scope: %d", code)
	}
}

func TestConsoleKBOversize(t *testing.T) {
	c, base := newKBConsole(t)
	root := c.signIn(t, admin)
	token := c.csrf(t, root, "/kb")
	for _, n := range []int{kbCap + 1, 1 << 20, 3 << 20} { // over the cap; over what a form may hold
		code, body := c.upload(t, root, map[string]string{"csrf": token}, "big.txt", bytes.Repeat([]byte("a "), n/2+1))
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "over the cap of 4.0 KiB per document") {
			t.Errorf("%d bytes: %d\n%s", n, code, body)
		}
	}
	if docs, _ := base.ListAll(t.Context()); len(docs) != 0 {
		t.Errorf("stored: %+v", docs)
	}
	if log := c.kbAudit(t, "kb.add"); len(log) != 0 {
		t.Errorf("audited: %+v", log)
	}
}

func TestConsoleKBURLPrivateRefused(t *testing.T) {
	c, base := newKBConsole(t)
	root := c.signIn(t, admin)
	token := c.csrf(t, root, "/kb")
	// The console's own address: a loopback one, which the fetcher's
	// rules refuse before connecting.
	code, body := c.upload(t, root, map[string]string{"csrf": token, "url": c.http.URL + "/static/console.css"}, "", nil)
	if code != http.StatusBadRequest || !strings.Contains(body, "refused") {
		t.Errorf("a private URL: %d\n%s", code, body)
	}
	if docs, _ := base.ListAll(t.Context()); len(docs) != 0 {
		t.Errorf("stored: %+v", docs)
	}
	// Neither a file nor a URL.
	if code, body := c.upload(t, root, map[string]string{"csrf": token}, "", nil); code != http.StatusBadRequest || !strings.Contains(body, "choose a file") {
		t.Errorf("an empty form: %d\n%s", code, body)
	}
}

func TestConsoleKBRemove(t *testing.T) {
	c, base := newKBConsole(t)
	d := doc(t, base, space, "plants.md", plants)
	root := c.signIn(t, admin)
	token := c.csrf(t, root, "/kb")
	id := strconv.FormatInt(d.ID, 10)
	if code, _ := c.post(t, root, "/kb/"+id+"/remove", url.Values{}); code != http.StatusForbidden {
		t.Errorf("without the token: %d", code)
	}
	if docs, _ := base.ListAll(t.Context()); len(docs) != 1 {
		t.Fatalf("removed without the token: %+v", docs)
	}
	if code, body := c.post(t, root, "/kb/"+id+"/remove", url.Values{"csrf": {token}}); code != http.StatusSeeOther {
		t.Fatalf("remove: %d\n%s", code, body)
	}
	if docs, _ := base.ListAll(t.Context()); len(docs) != 0 {
		t.Errorf("still there: %+v", docs)
	}
	if hits, _ := base.Search(t.Context(), []string{space}, "ficus", 5); len(hits) != 0 {
		t.Errorf("its passages are still found: %+v", hits)
	}
	log := c.kbAudit(t, "kb.remove")
	if len(log) != 1 || log[0].Target != id || !strings.Contains(log[0].Detail, "Plants") {
		t.Errorf("audit: %+v", log)
	}
	for _, path := range []string{"/kb/" + id + "/remove", "/kb/x/remove"} {
		if code, _ := c.post(t, root, path, url.Values{"csrf": {token}}); code != http.StatusNotFound {
			t.Errorf("%s: %d", path, code)
		}
	}
}

func TestConsoleKBCSRF(t *testing.T) {
	c, base := newKBConsole(t)
	root := c.signIn(t, admin)
	token := c.csrf(t, root, "/kb")
	for name, fields := range map[string]map[string]string{
		"no token":      {},
		"a wrong token": {"csrf": "x" + token[1:]},
	} {
		if code, _ := c.upload(t, root, fields, "plants.md", []byte(plants)); code != http.StatusForbidden {
			t.Errorf("%s: %d", name, code)
		}
	}
	if docs, _ := base.ListAll(t.Context()); len(docs) != 0 {
		t.Errorf("stored: %+v", docs)
	}
}

// TestConsoleKBPerson: a person has no Knowledge page; they add to their
// own private documents whatever scope the form names, and remove only
// those; each change is audited.
func TestConsoleKBPerson(t *testing.T) {
	c, base := newKBConsole(t)
	theirs := doc(t, base, "person:slack:UANA", "ana.md", plants)
	other := doc(t, base, "person:slack:UBO", "bo.md", plants+"\nAnd the fern.\n")
	ops := doc(t, base, "operator", "handbook.md", "# Handbook\n\nDeploys on Tuesdays.\n")
	ana := c.signIn(t, ana)
	token := c.csrf(t, ana, "/")
	if code, _ := c.get(t, ana, "/kb"); code != http.StatusForbidden {
		t.Errorf("GET /kb: %d", code)
	}
	if _, page := c.get(t, ana, "/"); !strings.Contains(page, "ana.md") || strings.Contains(page, "bo.md") || strings.Contains(page, "handbook.md") {
		t.Errorf("a person's page lists other documents than theirs:\n%s", page)
	}
	code, _ := c.upload(t, ana, map[string]string{"csrf": token, "scope": "operator", "title": "Bikes"}, "bikes.md", []byte("# Bikes\n\nThe lock code is in the drawer.\n"))
	if code != http.StatusSeeOther {
		t.Errorf("a person's upload: %d", code)
	}
	for _, d := range []kb.Document{other, ops} {
		if code, _ := c.post(t, ana, "/kb/"+strconv.FormatInt(d.ID, 10)+"/remove", url.Values{"csrf": {token}}); code != http.StatusForbidden {
			t.Errorf("removing %s: %d, want 403", d.Source, code)
		}
	}
	if code, _ := c.post(t, ana, "/kb/"+strconv.FormatInt(theirs.ID, 10)+"/remove", url.Values{"csrf": {token}}); code != http.StatusSeeOther {
		t.Errorf("removing their own: %d", code)
	}
	docs, _ := base.ListAll(t.Context())
	var got []string
	for _, d := range docs {
		got = append(got, d.Scope+" "+d.Source)
	}
	slices.Sort(got)
	if want := []string{"operator handbook.md", "person:slack:UANA bikes.md", "person:slack:UBO bo.md"}; !slices.Equal(got, want) {
		t.Errorf("documents: %q, want %q", got, want)
	}
	var log []string
	for _, e := range c.kbAudit(t, "kb.") {
		log = append(log, e.Actor+" "+e.Action+" "+e.Via)
	}
	if want := []string{"slack:UANA kb.remove console", "slack:UANA kb.add console"}; !slices.Equal(log, want) {
		t.Errorf("audit: %q, want %q", log, want)
	}
}

// TestConsoleKBUploadBound: only an upload to /kb/add may pass the 1 MiB
// a form holds, and then only up to the knowledge base's cap; elsewhere
// a multipart form past it is refused before anything is read to disk.
func TestConsoleKBUploadBound(t *testing.T) {
	c, _ := newKBConsole(t)
	big := bytes.Repeat([]byte("a"), 2<<20)
	root, ana := c.signIn(t, admin), c.signIn(t, ana)
	for _, tc := range []struct {
		name string
		b    *http.Client
		path string
		says string
	}{{"a person's upload", ana, "/kb/add", "over the cap of"}, {"an admin's form elsewhere", root, "/sessions/revoke", "larger than this console takes"}} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("csrf", c.csrf(t, tc.b, "/"))
		fw, _ := mw.CreateFormFile("file", "big.txt")
		_, _ = fw.Write(big)
		_ = mw.Close()
		resp, err := tc.b.Post(c.http.URL+tc.path, mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(got), tc.says) {
			t.Errorf("%s: %d\n%s", tc.name, resp.StatusCode, got)
		}
	}
}

func TestConsoleKBOff(t *testing.T) {
	c := newConsole(t)
	root := c.signIn(t, admin)
	code, body := c.get(t, root, "/kb")
	if code != http.StatusOK || !strings.Contains(body, "The knowledge base is off") {
		t.Errorf("GET /kb without one: %d\n%s", code, body)
	}
	if code, _ := c.upload(t, root, map[string]string{"csrf": c.csrf(t, root, "/")}, "x.md", []byte(plants)); code != http.StatusNotFound {
		t.Errorf("POST /kb/add without one: %d", code)
	}
}
