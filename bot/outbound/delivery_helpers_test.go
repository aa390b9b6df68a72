package outbound_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// refsFirst wraps an adapter and checks, on every call in a chat, that
// each ref an earlier Send in that chat returned is already in the
// outbox: a reply records its ref before it does anything else. Replies
// in other chats run concurrently and are not ordered with it.
type refsFirst struct {
	chat.Adapter
	t   testing.TB
	box *bottest.Outbox

	mu   sync.Mutex
	refs map[string][]string // by chat
}

func chatOf(t chat.Thread) string { return t.Space + "/" + t.Chat }

func (a *refsFirst) check(op string, t chat.Thread) {
	a.mu.Lock()
	refs := slices.Clone(a.refs[chatOf(t)])
	a.mu.Unlock()
	for _, r := range refs {
		if !a.box.HasRef(r) {
			a.t.Errorf("%s called before message %s was recorded in the outbox", op, r)
		}
	}
}

// remember adds ref to the refs that must be recorded before any call.
func (a *refsFirst) remember(t chat.Thread, ref string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refs == nil {
		a.refs = map[string][]string{}
	}
	a.refs[chatOf(t)] = append(a.refs[chatOf(t)], ref)
}

func (a *refsFirst) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	a.check("Send", t)
	ref, err := a.Adapter.Send(ctx, t, out)
	if ref.ID != "" {
		a.remember(t, ref.ID)
	}
	return ref, err
}

func (a *refsFirst) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	a.check("Edit", ref.Thread)
	return a.Adapter.Edit(ctx, ref, out)
}

// logBuffer collects log output from many goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// testSplit is a small fence-aware splitter standing in for
// bot/format.Split: it cuts at line ends, and a cut inside a code fence
// closes the fence in one part and reopens it, with its info string, in
// the next.
func testSplit(md string, limit int, measure func(string) int) []string {
	const closer = "\n```"
	closeFor := func(open string) string {
		if open == "" {
			return ""
		}
		return closer
	}
	toggle := func(open, line string) string {
		if !strings.HasPrefix(line, "```") {
			return open
		}
		if open == "" {
			return line
		}
		return ""
	}
	var parts []string
	cur, open := "", ""
	for _, line := range strings.SplitAfter(md, "\n") {
		if line == "" || (cur == "" && strings.TrimSpace(line) == "") {
			continue
		}
		next := toggle(open, line)
		if cur != "" && measure(strings.TrimRight(cur+line, "\n")+closeFor(next)) > limit {
			parts = append(parts, strings.TrimRight(cur, "\n")+closeFor(open))
			cur = open // reopen the fence with its info string
		}
		cur += line
		open = next
	}
	if strings.TrimSpace(cur) != "" {
		parts = append(parts, strings.TrimRight(cur, "\n"))
	}
	return parts
}

// dl is a delivery under test: the fake platform, the outbox, the
// Delivery and its log.
type dl struct {
	fake *bottest.Adapter
	// base is what the delivery calls, under refsFirst (the fake, or the
	// streaming fake); wrap, when set, turns refsFirst into the adapter
	// the delivery sees.
	base   chat.Adapter
	wrap   func(*refsFirst) chat.Adapter
	box    *bottest.Outbox
	d      *outbound.Delivery
	pacer  *outbound.Pacer
	logs   *logBuffer
	thread chat.Thread
	user   chat.User
}

// capsEvery returns the fake's default capabilities paced at one call per
// every.
func capsEvery(every time.Duration) chat.Capabilities {
	c := bottest.DefaultCapabilities()
	c.EditEvery = every
	return c
}

func newDL(t testing.TB, caps chat.Capabilities, fakeCfg bottest.Config, mod func(*outbound.DeliveryConfig)) *dl {
	t.Helper()
	fakeCfg.Capabilities = caps
	fake := bottest.New(fakeCfg)
	return newDLOn(t, fake, fake, nil, mod)
}

// newDLOn is newDL on a given platform: fake answers the queries, base
// takes the calls, wrap (optional) wraps refsFirst.
func newDLOn(t testing.TB, fake *bottest.Adapter, base chat.Adapter, wrap func(*refsFirst) chat.Adapter, mod func(*outbound.DeliveryConfig)) *dl {
	t.Helper()
	h := &dl{
		fake:   fake,
		base:   base,
		wrap:   wrap,
		box:    &bottest.Outbox{},
		logs:   &logBuffer{},
		thread: chat.Thread{Platform: "fake", Space: "W1", Chat: "C1", ID: "root"},
		user:   chat.User{Platform: "fake", ID: "U1", Name: "Ada"},
	}
	h.d = h.delivery(t, mod)
	return h
}

// delivery returns a new Delivery on h's platform and outbox, with its own
// pacer: what a restarted process builds.
func (h *dl) delivery(t testing.TB, mod func(*outbound.DeliveryConfig)) *outbound.Delivery {
	t.Helper()
	var ad chat.Adapter = &refsFirst{Adapter: h.base, t: t, box: h.box}
	if h.wrap != nil {
		ad = h.wrap(ad.(*refsFirst))
	}
	cfg := outbound.DeliveryConfig{
		Adapter: ad,
		Outbox:  h.box,
		Split:   testSplit,
		Logger:  slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&cfg)
	}
	if cfg.Pacer == nil {
		cfg.Pacer = outbound.NewPacer(outbound.PacerConfig{Platform: h.fake.Platform(), Capabilities: h.fake.Capabilities(), Now: cfg.Now, Sleep: cfg.Sleep})
	}
	h.pacer = cfg.Pacer
	d, err := outbound.NewDelivery(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (h *dl) begin(t testing.TB, ctx context.Context, key string) *outbound.ReplyWriter {
	t.Helper()
	w, err := h.d.Begin(ctx, key, "s1", h.thread, h.user, "m-"+key)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// texts returns what the messages of h's thread show now.
func (h *dl) texts() []string {
	var out []string
	for _, m := range h.fake.Messages(h.thread) {
		out = append(out, m.Text)
	}
	return out
}

// checkPlatform fails t if the platform saw a duplicate answer, a no-op
// edit or a call refused by its own rate limit.
func (h *dl) checkPlatform(t testing.TB) {
	t.Helper()
	h.checkDuplicates(t)
	h.checkRateLimits(t)
	for _, e := range h.fake.Edits() {
		if e.NoOp {
			t.Errorf("no-op edit of %s at %s: %q", e.Ref.ID, e.At.Format(time.TimeOnly), e.Out.Text)
		}
	}
}

func (h *dl) checkDuplicates(t testing.TB) {
	t.Helper()
	if d := h.fake.DuplicateFinals(); len(d) > 0 {
		t.Errorf("duplicate messages: %+v", d)
	}
}

func (h *dl) checkRateLimits(t testing.TB) {
	t.Helper()
	if n := h.fake.RateLimited(); n > 0 {
		t.Errorf("the platform refused %d calls for exceeding its rate limit", n)
	}
}

// countText returns how many messages of h's thread show text.
func (h *dl) countText(text string) int {
	n := 0
	for _, s := range h.texts() {
		if s == text {
			n++
		}
	}
	return n
}

// fenceBalanced reports whether every code fence opened in s is closed.
func fenceBalanced(s string) bool {
	n := 0
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, "```") {
			n++
		}
	}
	return n%2 == 0
}

// arrivals counts, per text, how many times it reached a message: sent
// with it (a final part posted without a placeholder) or edited in.
func (h *dl) arrivals() map[string]int {
	n := map[string]int{}
	for _, c := range h.fake.Calls() {
		if (c.Op == bottest.OpSend || c.Op == bottest.OpEdit) && c.Applied && !c.NoOp {
			n[c.Out.Text]++
		}
	}
	return n
}

// FindSent passes the question on to a base that can answer it.
func (a *refsFirst) FindSent(ctx context.Context, t chat.Thread, key, after string) (chat.MessageRef, bool, error) {
	a.check("find sent", t)
	f, ok := a.Adapter.(chat.SentFinder)
	if !ok {
		return chat.MessageRef{}, false, nil
	}
	ref, found, err := f.FindSent(ctx, t, key, after)
	if found {
		a.remember(t, ref.ID)
	}
	return ref, found, err
}
