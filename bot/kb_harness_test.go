//go:build sqlite_fts5

package bot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// /kb through the router: a real keyword-only knowledge base over a real
// SQLite file (the build tag sqlite_fts5 gives it its index), two fake
// platforms whose people attach files, and a fake web for /kb add <url>.

// kbDay is the knowledge base's clock: every document is added that day.
var kbDay = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

var (
	slackAlice = chat.User{Platform: "slack", ID: "alice", Name: "Alice"}
	slackBob   = chat.User{Platform: "slack", ID: "bob", Name: "Bob"}
	slackCarol = chat.User{Platform: "slack", ID: "carol", Name: "Carol"}
	slackRoot  = chat.User{Platform: "slack", ID: "root", Name: "Root"} // an admin
	// Alice on Telegram is another person than Alice on Slack.
	tgAlice   = chat.User{Platform: "telegram", ID: "alice", Name: "Alice"}
	tgBob     = chat.User{Platform: "telegram", ID: "bob", Name: "Bob"}
	tgMallory = chat.User{Platform: "telegram", ID: "mallory", Name: "Mallory"}
)

// kbAccess: Slack is open by default; on Telegram only Alice and Bob are
// allowed; Root is an admin.
var kbAccess = bot.Access{
	Platforms: map[string]bot.AccessList{"slack": {Open: true}, "telegram": {AllowUsers: []string{"alice", "bob"}}},
	Admins:    []string{slackRoot.Key()},
}

// kbPlace is where a command is typed, and by whom.
type kbPlace struct {
	thread chat.Thread
	user   chat.User
	direct bool
}

func slackChannel(space, chatID string, u chat.User) kbPlace {
	return kbPlace{thread: chat.Thread{Platform: "slack", Space: space, Chat: chatID}, user: u}
}

func slackDM(space string, u chat.User) kbPlace {
	return kbPlace{thread: chat.Thread{Platform: "slack", Space: space, Chat: "D-" + u.ID}, user: u, direct: true}
}

func tgGroup(chatID string, u chat.User) kbPlace {
	return kbPlace{thread: chat.Thread{Platform: "telegram", Chat: chatID}, user: u}
}

func tgDM(u chat.User) kbPlace {
	return kbPlace{thread: chat.Thread{Platform: "telegram", Chat: u.ID}, user: u, direct: true}
}

func (p kbPlace) where() bot.Where {
	return bot.Where{Thread: p.thread, User: p.user, Direct: p.direct}
}

// kbPlatform is a chat platform whose people attach files: chatFake, plus
// FetchFile serving each attached file's bytes through chat.CheckFileSize
// and chat.ReadFile, the limits every real adapter enforces.
type kbPlatform struct {
	*chatFake
	mu        sync.Mutex
	n         int
	files     map[string][]byte
	downloads map[string]int // by file id: downloads started
	// hold, when set, makes FetchFile wait for it or for its context to
	// end, first saying so on holding: a download still running when the
	// process stops.
	hold    chan struct{}
	holding chan string
	// started, when set, is closed as Run starts taking events: after
	// the router's recovery, as a real adapter's first event would be.
	started chan struct{}
}

func (p *kbPlatform) Run(ctx context.Context, h chat.Handler) error {
	if p.started != nil {
		close(p.started)
	}
	return p.chatFake.Run(ctx, h)
}

func newKBPlatform(platform string, ephemeral bool) *kbPlatform {
	return &kbPlatform{
		chatFake: &chatFake{platform: platform, ephemeral: ephemeral},
		files:    map[string][]byte{}, downloads: map[string]int{}, holding: make(chan string, 1),
	}
}

// attach is a file a person attaches, as the platform describes it.
func (p *kbPlatform) attach(name, mime string, data []byte) chat.File {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	id := fmt.Sprintf("F%d", p.n)
	p.files[id] = data
	return chat.File{ID: id, Name: name, MIME: mime, Size: int64(len(data))}
}

func (p *kbPlatform) FetchFile(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	if err := chat.CheckFileSize(f, max); err != nil {
		return nil, err // refused before any download, as the adapters do
	}
	p.mu.Lock()
	p.downloads[f.ID]++
	data, ok := p.files[f.ID]
	hold := p.hold
	p.mu.Unlock()
	if hold != nil {
		p.holding <- f.ID
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if !ok {
		return nil, fmt.Errorf("fetch %v: 404 Not Found", f)
	}
	return chat.ReadFile(bytes.NewReader(data), int64(len(data)), f, max)
}

func (p *kbPlatform) downloaded(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.downloads[id]
}

// told is what user was told privately on this platform, in order.
func (p *kbPlatform) told(user string) []string {
	_, private := p.snapshot()
	var out []string
	for _, s := range private {
		if text, ok := strings.CutPrefix(s, user+"|"); ok {
			out = append(out, text)
		}
	}
	return out
}

// pageFetcher is the web as /kb add <url> sees it (kb.Fetcher): the pages
// it has, and every address it was asked for.
type pageFetcher struct {
	mu    sync.Mutex
	pages map[string]kb.Fetched
	asked []string
}

func (f *pageFetcher) FetchDocument(_ context.Context, url string, _ int64) (kb.Fetched, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, url)
	if p, ok := f.pages[url]; ok {
		return p, nil
	}
	return kb.Fetched{}, errors.New("404 Not Found")
}

func (f *pageFetcher) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// kbWorld is one process's worth of /kb: the router over a real SQLite
// file with a knowledge base over the same store, restartable over that
// file. The platforms and the web stand for the outside world and stay.
type kbWorld struct {
	path   string
	slack  *kbPlatform
	tg     *kbPlatform
	web    *pageFetcher
	db     *store.DB
	kb     *kb.Base
	router *bot.Router
	keys   int
}

func newKBWorld(t *testing.T) *kbWorld {
	t.Helper()
	w := &kbWorld{
		path:  filepath.Join(t.TempDir(), "parley.db"),
		slack: newKBPlatform("slack", true),
		tg:    newKBPlatform("telegram", false),
		web:   &pageFetcher{pages: map[string]kb.Fetched{}},
	}
	w.open(t)
	return w
}

// open starts the process's pieces over the database.
func (w *kbWorld) open(t *testing.T) {
	t.Helper()
	db, err := store.Open(context.Background(), w.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.KeywordIndex(); err != nil {
		t.Fatalf("KeywordIndex: %v", err)
	}
	w.db = db
	// A small file cap, so a file over it needs no megabytes.
	w.kb = kb.New(kb.Config{Store: db, Fetcher: w.web, MaxFileBytes: 64 << 10, Now: func() time.Time { return kbDay }})
	w.router = newRouter(t, bot.RouterConfig{
		Sessions: db, Inbox: db, KV: db, Access: kbAccess, Knowledge: w.kb, Audit: db, Logger: slog.New(slog.DiscardHandler),
	}, w.slack, w.tg)
}

// restart drops the process, as a dying one would, and starts another
// over the same file.
func (w *kbWorld) restart(t *testing.T) {
	t.Helper()
	if err := w.db.Close(); err != nil {
		t.Fatal(err)
	}
	w.open(t)
}

func (w *kbWorld) platform(name string) *kbPlatform {
	if name == "telegram" {
		return w.tg
	}
	return w.slack
}

// command is /kb args typed at p with files attached, under a fresh key.
func (w *kbWorld) command(p kbPlace, files []chat.File, args ...string) chat.Command {
	w.keys++
	return chat.Command{Key: fmt.Sprintf("kb-%d", w.keys), Thread: p.thread, User: p.user, Direct: p.direct,
		Name: "kb", Args: args, Files: files}
}

// do runs c to its end (a /kb add runs in the background) and returns
// the one answer its author was told.
func (w *kbWorld) do(t *testing.T, c chat.Command) string {
	t.Helper()
	p := w.platform(c.Thread.Platform)
	before := len(p.told(c.User.ID))
	if err := w.router.HandleCommand(t.Context(), c); err != nil {
		t.Fatalf("/kb %s: %v", strings.Join(c.Args, " "), err)
	}
	w.router.Wait()
	told := p.told(c.User.ID)
	if len(told) != before+1 {
		t.Fatalf("/kb %s: %s was told %q, want one answer", strings.Join(c.Args, " "), c.User.ID, told[before:])
	}
	return told[before]
}

// add attaches one file at p with /kb add and checks it was added.
func (w *kbWorld) add(t *testing.T, p kbPlace, name, content string) {
	t.Helper()
	f := w.platform(p.thread.Platform).attach(name, "text/markdown", []byte(content))
	if got := w.do(t, w.command(p, []chat.File{f}, "add")); !strings.Contains(got, name+": added (") {
		t.Fatalf("/kb add %s at %v: %q", name, p.thread, got)
	}
}

// addOperator adds a document as `parley kb add` does: straight into
// the operator's scope.
func (w *kbWorld) addOperator(t *testing.T, name, content string) {
	t.Helper()
	doc := kb.Document{Scope: bot.OperatorScope().Key(), Source: name, AddedBy: "operator"}
	if _, err := w.kb.Add(t.Context(), doc, "text/markdown", []byte(content)); err != nil {
		t.Fatal(err)
	}
}

// all is every stored document, whatever its scope.
func (w *kbWorld) all(t *testing.T) []kb.Document {
	t.Helper()
	docs, err := w.kb.ListAll(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func sources(docs []kb.Document) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.Source)
	}
	return out
}

// listed are the sources a /kb answer numbers, in its order.
var listedLine = regexp.MustCompile(`(?m)^(\d+)\. (\S+) — `)

func listed(answer string) []string {
	out := []string{}
	for i, m := range listedLine.FindAllStringSubmatch(answer, -1) {
		if m[1] != fmt.Sprint(i+1) {
			return append(out, "misnumbered: "+m[0])
		}
		out = append(out, m[2])
	}
	return out
}

// audited lists what the audit log holds under action (a prefix ending
// in "."), oldest first, as "actor action target detail".
func (w *kbWorld) audited(t *testing.T, action string) []string {
	t.Helper()
	log, err := w.db.AuditEntries(t.Context(), bot.AuditFilter{Action: action}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range slices.Backward(log) {
		out = append(out, strings.Join([]string{e.Actor, e.Action, e.Target, e.Detail, e.Via}, " "))
	}
	return out
}
