package webconsole_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole"
)

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// console is a console over a real SQLite store, served by httptest.
type console struct {
	srv   *webconsole.Server
	http  *httptest.Server
	db    *store.DB
	clock *clock
}

const admin = "slack:UADM"

func newConsole(t *testing.T) *console {
	t.Helper()
	return newConsoleWith(t, nil)
}

// newConsoleWith is newConsole with the config as set changes it, after
// the store is open.
func newConsoleWith(t *testing.T, set func(*webconsole.Config, *store.DB)) *console {
	t.Helper()
	return newConsoleOn(t, false, set)
}

// newConsoleOn is newConsoleWith, the store stamping what it keeps by the
// console's clock when clocked is set (by the real one otherwise).
func newConsoleOn(t *testing.T, clocked bool, set func(*webconsole.Config, *store.DB)) *console {
	t.Helper()
	c := &console{clock: &clock{t: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)}}
	var opts []store.Option
	if clocked {
		opts = append(opts, store.WithClock(c.clock.now))
	}
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c.db = db
	cfg := webconsole.Config{Auth: db, Audit: db, Data: db, Costs: db, Turns: db, Shared: db, Now: c.clock.now,
		Limits:  webconsole.Limits{DailyCost: 0.01, Monthly: map[string]float64{"main": 0.05}},
		IsAdmin: func(u string) bool { return u == admin }}
	if set != nil {
		set(&cfg, db)
	}
	c.srv, err = webconsole.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.http = httptest.NewServer(c.srv)
	t.Cleanup(c.http.Close)
	return c
}

// browser is a cookie-keeping client that does not follow redirects.
func (c *console) browser(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// link makes a sign-in link for user and returns its path.
func (c *console) link(t *testing.T, user string) string {
	t.Helper()
	l, err := c.srv.NewLink(t.Context(), user)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(l)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// signIn signs a new browser in as user.
func (c *console) signIn(t *testing.T, user string) *http.Client {
	t.Helper()
	b := c.browser(t)
	if code, _ := c.post(t, b, c.link(t, user), nil); code != http.StatusSeeOther {
		t.Fatalf("signing in as %s: %d", user, code)
	}
	return b
}

func (c *console) get(t *testing.T, b *http.Client, path string) (int, string) {
	t.Helper()
	resp, err := b.Get(c.http.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (c *console) post(t *testing.T, b *http.Client, path string, form url.Values) (int, string) {
	t.Helper()
	resp, err := b.PostForm(c.http.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the token of the forms on path.
func (c *console) csrf(t *testing.T, b *http.Client, path string) string {
	t.Helper()
	_, body := c.get(t, b, path)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on %s", path)
	}
	return m[1]
}

// conversation stores a conversation started by user in a channel.
func (c *console) conversation(t *testing.T, user, text string) string {
	t.Helper()
	ctx := context.Background()
	sid, err := c.db.SessionFor(ctx, chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: user + text})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.db.Set(ctx, "starter:"+sid, user); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"command": "ls /tmp"})
	err = c.db.AppendMessages(ctx, sid,
		llm.Message{Role: llm.RoleUser, Text: text},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shell", Arguments: args}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "shell", Text: "a.txt"},
		llm.Message{Role: llm.RoleAssistant, Text: "There is a.txt."})
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

func TestSignInOnce(t *testing.T) {
	c := newConsole(t)
	path := c.link(t, webconsole.Operator)
	b := c.browser(t)
	// Opening the link (a chat's preview does) spends nothing.
	for range 2 {
		if code, body := c.get(t, b, path); code != http.StatusOK || !strings.Contains(body, `<button type="submit" autofocus>Sign in</button>`) {
			t.Fatalf("GET %s: %d\n%s", path, code, body)
		}
	}
	resp, err := b.PostForm(c.http.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", resp.StatusCode)
	}
	cookie := resp.Header.Get("Set-Cookie")
	// Max-Age: the browser's clock, not the server's, times the session
	// (this test's console clock is a fixed day; a jar honouring Expires
	// alone dropped the cookie once the real clock passed its end).
	for _, want := range []string{"parley_console=", "HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("cookie %q lacks %s", cookie, want)
		}
	}
	if code, body := c.get(t, b, "/"); code != http.StatusOK || !strings.Contains(body, "<h1>Overview</h1>") {
		t.Fatalf("the operator's overview: %d\n%s", code, body)
	}
	// Today's calls and cost, from the costs every replica keeps.
	if err := c.db.RecordCost(t.Context(), bot.Cost{At: c.clock.now(), User: "slack:U1", Agent: "default", Model: "openai/m",
		Usage: llm.Usage{InputTokens: 1000, OutputTokens: 234}, Nanos: 3_600_000, Priced: true}); err != nil {
		t.Fatal(err)
	}
	if _, body := c.get(t, b, "/"); !strings.Contains(body, "<dt>Tokens</dt><dd>1,234</dd>") || !strings.Contains(body, `<a href="/usage">$0.0036</a>`) {
		t.Fatalf("today on the overview:\n%s", body)
	}
	// The replicas sharing the store and who holds which lease.
	if _, err := c.db.Beat(t.Context(), "replica-a", c.clock.now(), c.clock.now()); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.db.HoldLease(t.Context(), "background:reflection", "replica-a", c.clock.now(), time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, body := c.get(t, b, "/"); !strings.Contains(body, "1 replica seen in the last two minutes: replica-a.") ||
		!strings.Contains(body, "<td>background:reflection</td><td>replica-a</td>") {
		t.Fatalf("replicas and leases on the overview:\n%s", body)
	}
	// Used: another browser cannot use it again.
	if code, body := c.post(t, c.browser(t), path, nil); code != http.StatusForbidden || !strings.Contains(body, "used already") {
		t.Fatalf("a reused link: %d\n%s", code, body)
	}
	// Expired: ten minutes is all a link has.
	late := c.link(t, webconsole.Operator)
	c.clock.add(webconsole.LinkLifetime + time.Second)
	if code, _ := c.post(t, c.browser(t), late, nil); code != http.StatusForbidden {
		t.Fatalf("an expired link: %d", code)
	}
	// A made-up link.
	if code, _ := c.post(t, c.browser(t), "/login/"+strings.Repeat("A", 43), nil); code != http.StatusForbidden {
		t.Fatalf("a forged link: %d", code)
	}
	// The session ends after 12 hours.
	c.clock.add(webconsole.SessionLifetime)
	if code, _ := c.get(t, b, "/"); code != http.StatusUnauthorized {
		t.Fatalf("after 12 h: %d", code)
	}
	// The audit log has the sign-in.
	log, err := c.db.AuditEntries(t.Context(), botFilter("console.signin"), 10)
	if err != nil || len(log) != 1 || log[0].Actor != webconsole.Operator || log[0].Via != "console" {
		t.Fatalf("audit: %+v %v", log, err)
	}
}

func TestPersonSeesOnlyTheirOwn(t *testing.T) {
	c := newConsole(t)
	mine := c.conversation(t, "slack:UANA", "what is in /tmp?")
	theirs := c.conversation(t, "slack:UBO", "bo's secret plan")
	ana := c.signIn(t, "slack:UANA")
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/", http.StatusOK, "What Parley keeps about you"},
		{"/conversations", http.StatusOK, mine[:8]},
		{"/conversations/" + mine, http.StatusOK, "ls /tmp"},
		{"/conversations/" + theirs, http.StatusForbidden, "no conversation of yours"},
		{"/conversations/" + theirs[:8], http.StatusForbidden, "no conversation of yours"},
		{"/conversations/nonexistent", http.StatusForbidden, "no conversation of yours"},
		{"/conversations/" + mine + "/export", http.StatusOK, "> what is in /tmp?"},
		{"/conversations/" + mine + "/export?format=json", http.StatusOK, `"text": "what is in /tmp?"`},
		{"/conversations/" + mine + "/export?format=xml", http.StatusBadRequest, "markdown or json"},
		{"/conversations/" + theirs + "/export", http.StatusForbidden, "no conversation of yours"},
		// Naming another person in the list's filter changes nothing.
		{"/conversations?person=slack:UBO", http.StatusOK, mine[:8]},
		{"/audit", http.StatusForbidden, "for admins"},
		{"/sessions", http.StatusForbidden, "for admins"},
	} {
		code, body := c.get(t, ana, tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("ana GET %s: %d, want %d with %q", tc.path, code, tc.code, tc.want)
		}
		if strings.Contains(body, "secret plan") || strings.Contains(body, theirs[:8]) {
			t.Errorf("ana GET %s shows bo's conversation", tc.path)
		}
	}
	if code, _ := c.post(t, ana, "/sessions/revoke", url.Values{"csrf": {c.csrf(t, ana, "/")}, "all": {"1"}}); code != http.StatusForbidden {
		t.Errorf("ana revoking everyone: %d", code)
	}
	// An admin sees both, tool calls and all, and filters by person and
	// by place.
	root := c.signIn(t, admin)
	for _, tc := range []struct {
		query      string
		shown, not []string
	}{
		{"person=slack:UBO", []string{theirs[:8]}, []string{mine[:8]}},
		{"person=slack:UANA&platform=slack&chat=C1", []string{mine[:8]}, []string{theirs[:8]}},
		{"platform=telegram", nil, []string{mine[:8], theirs[:8]}},
	} {
		_, body := c.get(t, root, "/conversations?"+tc.query)
		for _, id := range tc.shown {
			if !strings.Contains(body, id) {
				t.Errorf("?%s lacks %s", tc.query, id)
			}
		}
		for _, id := range tc.not {
			if strings.Contains(body, id) {
				t.Errorf("?%s shows %s", tc.query, id)
			}
		}
	}
	if code, body := c.get(t, root, "/conversations/"+theirs); code != http.StatusOK || !strings.Contains(body, "bo&#39;s secret plan") {
		t.Errorf("the admin's view of bo's conversation: %d", code)
	}
}

func TestFormsNeedTheirToken(t *testing.T) {
	c := newConsole(t)
	b := c.signIn(t, admin)
	token := c.csrf(t, b, "/sessions")
	for _, tc := range []struct {
		name   string
		form   url.Values
		origin string
		code   int
	}{
		{"no token", url.Values{"all": {"1"}}, "", http.StatusForbidden},
		{"a wrong token", url.Values{"all": {"1"}, "csrf": {"x" + token[1:]}}, "", http.StatusForbidden},
		{"another site", url.Values{"id": {"000000000000"}, "csrf": {token}}, "https://evil.example", http.StatusForbidden},
		{"its token", url.Values{"id": {"000000000000"}, "csrf": {token}}, c.http.URL, http.StatusSeeOther},
	} {
		req, _ := http.NewRequest(http.MethodPost, c.http.URL+"/sessions/revoke", strings.NewReader(tc.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.code)
		}
	}
	// Still signed in: nothing was revoked by the refused forms.
	if code, _ := c.get(t, b, "/sessions"); code != http.StatusOK {
		t.Fatalf("after the refused forms: %d", code)
	}
	if code, _ := c.post(t, b, "/logout", url.Values{"csrf": {token}}); code != http.StatusOK {
		t.Fatalf("sign out: %d", code)
	}
	if code, _ := c.get(t, b, "/"); code != http.StatusUnauthorized {
		t.Fatalf("after signing out: %d", code)
	}
}

func TestHeadersAndLimits(t *testing.T) {
	c := newConsole(t)
	resp, err := http.Get(c.http.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("not signed in: %d", resp.StatusCode)
	}
	for h, want := range map[string]string{
		"Content-Security-Policy": "script-src 'self'", "X-Frame-Options": "DENY",
		"Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
	} {
		if got := resp.Header.Get(h); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q in it", h, got, want)
		}
	}
	if strings.Contains(resp.Header.Get("Content-Security-Policy"), "unsafe-inline") {
		t.Error("the CSP allows inline code")
	}
	// Ten sign-in attempts a minute from one address, then 429.
	b := c.browser(t)
	for i := range 11 {
		code, _ := c.post(t, b, "/login/guess", nil)
		if want := http.StatusForbidden; i < 10 && code != want || i == 10 && code != http.StatusTooManyRequests {
			t.Fatalf("attempt %d: %d", i+1, code)
		}
	}
	c.clock.add(time.Minute)
	if code, _ := c.post(t, b, c.link(t, admin), nil); code != http.StatusSeeOther {
		t.Fatalf("a minute later, a real link: %d", code)
	}
	// The assets are served, and nothing else under /static.
	for path, code := range map[string]int{"/static/console.css": 200, "/static/htmx.min.js": 200, "/static/nothing.js": 404, "/static/templates/layout.html": 404} {
		if got, _ := c.get(t, b, path); got != code {
			t.Errorf("GET %s: %d, want %d", path, got, code)
		}
	}
	// A way out of the folder is cleaned away (a redirect to /server.go,
	// which is no page).
	if code, body := c.get(t, b, "/static/../server.go"); code == http.StatusOK || strings.Contains(body, "package webconsole") {
		t.Errorf("GET /static/../server.go: %d", code)
	}
}

var conversationLink = regexp.MustCompile(`href="/conversations/([0-9a-z]+)"`)

func TestConversationsPages(t *testing.T) {
	c := newConsole(t)
	all := map[string]bool{}
	for i := range 55 {
		all[c.conversation(t, "slack:UANA", fmt.Sprintf("question %d", i))] = true
	}
	b := c.signIn(t, admin)
	seen := map[string]bool{}
	for _, tc := range []struct {
		path         string
		rows         int
		newer, older bool
	}{
		{"/conversations", 50, false, true},
		{"/conversations?page=2", 5, true, false},
		{"/conversations?page=3", 0, false, false},
		{"/conversations?page=5000000", 0, false, false}, // past maxPage: its last page
	} {
		code, body := c.get(t, b, tc.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", tc.path, code)
		}
		rows := conversationLink.FindAllStringSubmatch(body, -1)
		for _, m := range rows {
			if seen[m[1]] || !all[m[1]] {
				t.Errorf("GET %s: %s shown twice, or unknown", tc.path, m[1])
			}
			seen[m[1]] = true
		}
		if len(rows) != tc.rows || strings.Contains(body, ">Newer<") != tc.newer || strings.Contains(body, ">Older<") != tc.older {
			t.Errorf("GET %s: %d rows, newer %v, older %v; want %d, %v, %v", tc.path, len(rows),
				strings.Contains(body, ">Newer<"), strings.Contains(body, ">Older<"), tc.rows, tc.newer, tc.older)
		}
	}
	if len(seen) != len(all) {
		t.Errorf("the pages showed %d of %d conversations", len(seen), len(all))
	}
}
