package bot_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// look makes rp's running turn look at its signals once, and waits until
// that look is over: the watcher is waiting for its next poll. A look
// that ends the turn is a bare poll; the watcher does not wait again.
func (rp *replica) look(t *testing.T) {
	t.Helper()
	sent := rp.looks.send()
	rp.poll <- struct{}{}
	if err := rp.looked.WaitFor(t.Context(), func() bool { return rp.looks.waits() > sent }); err != nil {
		t.Fatal(err)
	}
}

// nudge ends the sleep of rp that waits for wake, and waits until that
// sleeper has looked once more and sleeps again: what it saw is then
// settled, and moving the clock cannot reach the look the wake began.
func (rp *replica) nudge(t *testing.T) {
	t.Helper()
	before := rp.woke.Load()
	rp.wake <- struct{}{}
	if err := rp.napped.WaitFor(t.Context(), func() bool {
		w := rp.woke.Load()
		return w != before && rp.naps.Load() > w
	}); err != nil {
		t.Fatal(err)
	}
}

// lookCount counts the polls a test sent to a replica's turn watcher and
// the waits for a poll the watcher began: the look of poll n is over once
// wait n+1 began.
type lookCount struct {
	mu          sync.Mutex
	sent, began int
}

func (c *lookCount) send() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent++
	return c.sent
}

func (c *lookCount) waiting() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.began++
}

func (c *lookCount) waits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.began
}

// signalWorld is two replicas, a and b, sharing w's store, and a turn
// running on a in conversation m's thread, its session sid; b's router
// answers through bFake. tweakB, if not nil, is applied to b's config.
type signalWorld struct {
	w     *world
	a, b  *replica
	bFake *chatFake
	m     chat.Message
	sid   string
	clk   *sharedClock
}

func startTurnOnA(t *testing.T, tweakB func(*world) func(*bot.RouterConfig)) *signalWorld {
	t.Helper()
	sw := &signalWorld{w: newWorld(t, "slack", bot.Access{}), clk: &sharedClock{}, bFake: &chatFake{platform: "slack"}}
	leases := &memLeases{m: map[string]memLease{}}
	sw.a = startReplica(t, sw.w, leases, sw.clk, "a")
	var tweak func(*bot.RouterConfig)
	if tweakB != nil {
		tweak = tweakB(sw.w)
	}
	sw.b = startReplicaConfig(t, sw.w, leases, sw.clk, "b", nil, sw.bFake, tweak)
	sw.m = msg("slack", "C1", "1.1", "U1", "k1", "long task")
	sw.m.Mentioned = true
	sw.w.srv.Enqueue(llmtest.Stall("working on it"))
	if err := sw.a.router.HandleMessage(t.Context(), sw.m); err != nil {
		t.Fatal(err)
	}
	<-sw.w.replies.streaming // a runs the turn
	sw.sid, _, _ = sw.w.db.BoundSession(t.Context(), sw.m.Thread)
	return sw
}

// command runs the command name of the conversation's author on rp.
func (sw *signalWorld) command(t *testing.T, rp *replica, key, name string) {
	t.Helper()
	if err := rp.router.HandleCommand(t.Context(), chat.Command{Key: key, Thread: sw.m.Thread, User: sw.m.User, Name: name}); err != nil {
		t.Fatal(err)
	}
}

// TestStopReachesTheReplicaRunningTheTurn: a /stop received by a replica
// that does not run the conversation's turn is passed, through the store,
// to the one that does, which stops it as if it had received it; a stop
// asked before the turn began is left alone.
func TestStopReachesTheReplicaRunningTheTurn(t *testing.T) {
	sw := startTurnOnA(t, nil)
	w, a, b := sw.w, sw.a, sw.b

	// A stop left over from before this turn does nothing.
	stale, _ := json.Marshal(map[string]any{"at": sw.clk.now().Add(-time.Minute).UnixMilli(), "by": "U1"})
	if err := w.db.Set(t.Context(), "turn-stop:"+sw.sid, string(stale)); err != nil {
		t.Fatal(err)
	}
	a.look(t)
	if finals := w.replies.final("k1"); len(finals) != 0 {
		t.Fatalf("an old stop ended the turn: %q", finals)
	}
	// Nor does a record that does not parse.
	if err := w.db.Set(t.Context(), "turn-stop:"+sw.sid, "{not json"); err != nil {
		t.Fatal(err)
	}
	a.look(t)
	if finals := w.replies.final("k1"); len(finals) != 0 {
		t.Fatalf("a malformed stop ended the turn: %q", finals)
	}

	sw.command(t, b, "stop1", "stop")
	if _, private := sw.bFake.snapshot(); len(private) != 1 || !strings.HasSuffix(private[0], "|Stopping.") {
		t.Fatalf("b answered the stop %q", private)
	}
	a.poll <- struct{}{} // the look that stops it
	a.router.Wait()
	if finals := w.replies.final("k1"); len(finals) != 1 || !strings.Contains(finals[0], "stopped") {
		t.Fatalf("final after the stop on b: %q", finals)
	}

	// Nothing runs now: a stop anywhere says so, and asks no one.
	sw.command(t, b, "stop2", "stop")
	if _, private := sw.bFake.snapshot(); len(private) != 2 || !strings.HasSuffix(private[1], "|Nothing is running here.") {
		t.Fatalf("b answered the second stop %q", private)
	}
}

// TestPauseReachesTheReplicaRunningTheTurn: a /pause of a task whose turn
// runs on another replica reaches that turn through the store; the flag
// ends with the turn, so it never pauses the next one.
func TestPauseReachesTheReplicaRunningTheTurn(t *testing.T) {
	sw := startTurnOnA(t, func(w *world) func(*bot.RouterConfig) {
		return func(cfg *bot.RouterConfig) { cfg.Tasks = w.db }
	})
	a, b := sw.a, sw.b
	plan := task.Plan{Items: []task.Item{{Text: "one", Status: task.InProgress}}}
	if _, err := sw.w.db.SavePlan(t.Context(), sw.sid, sw.m.User.Key(), plan, nil); err != nil {
		t.Fatal(err)
	}

	sw.command(t, b, "pause1", "pause")
	if _, private := sw.bFake.snapshot(); len(private) != 1 || !strings.HasSuffix(private[0], "|Pausing the task after its current step. /resume continues it.") {
		t.Fatalf("b answered the pause %q", private)
	}
	if a.router.PauseAsked(sw.sid) {
		t.Fatal("a's turn is asked to pause before it looked")
	}
	a.look(t)
	if !a.router.PauseAsked(sw.sid) {
		t.Fatal("a's turn was not asked to pause")
	}
	sw.command(t, a, "stop1", "stop")
	a.router.Wait()
	if a.router.PauseAsked(sw.sid) {
		t.Fatal("the pause outlived its turn")
	}
}

// TestSteeringReachesTheReplicaRunningTheTurn: the author's follow-up that
// another replica accepted steers the running turn's next step, as one
// that reached the running replica does; it gets no answer of its own,
// and the replica that accepted it drops it once it has the session.
func TestSteeringReachesTheReplicaRunningTheTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	w.runner.Tools = append(w.runner.Tools, gate)
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}
	a := startReplica(t, w, leases, clk, "a")
	b := startReplica(t, w, leases, clk, "b")

	w.srv.Enqueue(llmtest.ToolCall("b1", "build", `{}`), llmtest.Text("Built, and skipped the tests as you asked."))
	first := msg("slack", "C1", "1.1", "U1", "k1", "build it")
	first.Mentioned = true
	if err := a.router.HandleMessage(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	<-gate.entered
	// Someone else's message in the thread waits for a turn of its own.
	other := msg("slack", "C1", "1.1", "U2", "k3", "and lint it")
	steer := msg("slack", "C1", "1.1", "U1", "k2", "skip the tests")
	for _, m := range []chat.Message{other, steer} {
		if err := b.router.HandleMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	a.look(t)
	w.srv.Enqueue(llmtest.Text("Linted.")) // the other person's turn
	close(gate.release)
	a.router.Wait()
	b.router.Wait()

	reqs := w.srv.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), "skip the tests") || strings.Contains(string(reqs[1].Body), "and lint it") {
		t.Fatalf("the follow-up on b did not reach a's next model call alone (%d requests)", len(reqs))
	}
	if got := w.replies.final("k1"); len(got) != 1 || !strings.Contains(got[0], "skipped the tests") {
		t.Fatalf("reply: %q", got)
	}
	if got := w.replies.final("k2"); len(got) != 0 {
		t.Fatalf("the steering message got a reply of its own: %q", got)
	}
	if got := w.replies.final("k3"); len(got) != 1 || got[0] != "Linted." {
		t.Fatalf("the other person's message: %q", got)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
		t.Fatalf("unfinished: %+v", left)
	}
}

// gatedFake is a chat adapter that keeps the start gate replicas give it.
type gatedFake struct {
	*chatFake
	gate chan func(context.Context, time.Duration) error
}

func (g *gatedFake) SetStartGate(gate func(context.Context, time.Duration) error) { g.gate <- gate }

// TestStartGateSpacesReplicas: the session starts of a platform that
// limits them bot-wide are spaced across replicas: one replica's start
// holds the other's until the spacing has passed.
func TestStartGateSpacesReplicas(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}
	ga := &gatedFake{chatFake: &chatFake{platform: "slack"}, gate: make(chan func(context.Context, time.Duration) error, 1)}
	gb := &gatedFake{chatFake: &chatFake{platform: "slack"}, gate: make(chan func(context.Context, time.Duration) error, 1)}
	a := startReplicaWith(t, w, leases, clk, "a", nil, ga)
	b := startReplicaWith(t, w, leases, clk, "b", nil, gb)
	gateA, gateB := <-ga.gate, <-gb.gate

	// Far longer than the test could take in real time, which the shared
	// clock follows: only advance moves past it.
	const every = time.Hour
	if err := gateA(t.Context(), every); err != nil {
		t.Fatal(err)
	}
	// b's start waits for a's spacing, then a's next one for b's.
	for _, next := range []struct {
		rp   *replica
		gate func(context.Context, time.Duration) error
	}{{b, gateB}, {a, gateA}} {
		started := make(chan error, 1)
		go func() { started <- next.gate(t.Context(), every) }()
		next.rp.nudge(t) // it looked once more: not yet
		select {
		case err := <-started:
			t.Fatalf("a start within the spacing (%v)", err)
		default:
		}
		clk.advance(every)
		next.rp.wake <- struct{}{}
		if err := <-started; err != nil {
			t.Fatal(err)
		}
	}
}

// TestReminderReachesTheReplicaRunningTheTurn: a turn on replica a waits
// for its author's reminder; the reminder shown by another replica's
// timekeeper reaches it through the store (router_reminded.go). A record
// from before the turn, another person's reminder or one that does not
// parse wakes nothing; the author's ends the wait with its text.
func TestReminderReachesTheReplicaRunningTheTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	clk := &sharedClock{}
	leases := &memLeases{m: map[string]memLease{}}
	a := startReplica(t, w, leases, clk, "a")
	wait, err := task.Wait(func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() })
	if err != nil {
		t.Fatal(err)
	}
	tool := entered{wait, make(chan struct{}, 1), make(chan string, 1)}
	w.runner.Tools = append(w.runner.Tools, tool)
	w.srv.Enqueue(llmtest.ToolCall("w1", "wait", `{"for":"reminder","timeout_seconds":1800}`), llmtest.Text("Checked."))
	m := msg("slack", "C1", "1.1", "U1", "k1", "deploy, then check when reminded")
	m.Mentioned = true
	if err := a.router.HandleMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	<-tool.began
	sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
	set := func(v string) {
		t.Helper()
		if err := w.db.Set(t.Context(), "turn-reminder:"+sid, v); err != nil {
			t.Fatal(err)
		}
	}
	record := func(at time.Time, owner string) string {
		v, _ := json.Marshal(map[string]any{"at": at.UnixMilli(), "owner": owner, "text": "check the deploy"})
		return string(v)
	}
	for _, v := range []string{record(clk.now().Add(-time.Minute), "slack:U1"), record(clk.now(), "slack:U2"), "{not json"} {
		set(v)
		a.look(t)
		select {
		case got := <-tool.results:
			t.Fatalf("%s ended the wait: %q", v, got)
		default:
		}
	}
	set(record(clk.now(), "slack:U1"))
	a.poll <- struct{}{}
	if got := <-tool.results; !strings.HasPrefix(got, task.WaitReminded) || !strings.Contains(got, "check the deploy") {
		t.Fatalf("the author's reminder on another replica gave the wait %q", got)
	}
	a.router.Wait()
	if finals := w.replies.final("k1"); len(finals) != 1 || finals[0] != "Checked." {
		t.Fatalf("final: %q", finals)
	}
}
