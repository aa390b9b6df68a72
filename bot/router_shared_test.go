package bot_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/changes"
)

// memLeases is bot.Leases in memory, as the stores keep them.
type memLeases struct {
	mu sync.Mutex
	m  map[string]memLease
}

type memLease struct {
	holder string
	until  time.Time
}

func (l *memLeases) HoldLease(_ context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.m[name]; ok && cur.holder != holder && now.Before(cur.until) {
		return false, nil
	}
	l.m[name] = memLease{holder, now.Add(ttl)}
	return true, nil
}

func (l *memLeases) ReleaseLease(_ context.Context, name, holder string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m[name].holder == holder {
		delete(l.m, name)
	}
	return nil
}

func (l *memLeases) held(name string) (memLease, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.m[name]
	return cur, ok
}

// replica is a router sharing w's database with other replicas. Its clock
// is the test's: adoption passes run when the test ticks, and time moves
// when it advances; leases are never renewed (no tick reaches them).
type replica struct {
	router   *bot.Router
	tick     chan struct{}
	sleeping chan struct{} // the adoption loop is between passes
	wake     chan struct{} // ends any other sleep: renewals, an elected receiver's retry, a start gate's wait
	// naps numbers the sleeps that wait for wake, woke is the number of
	// the last one a wake ended, and napped tells of either (nudge).
	naps, woke atomic.Int64
	napped     *changes.Feed
	poll       chan struct{} // ends a running turn's wait for its next look at turn signals
	// looks counts the polls the test sent and the waits for one the
	// turn's watcher began; looked tells of a new wait.
	looks  lookCount
	looked *changes.Feed
	cancel context.CancelFunc
	done   chan struct{}
}

// sharedClock is the replicas' clock: real time plus what the test added.
type sharedClock struct{ offset atomic.Int64 }

func (c *sharedClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *sharedClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

const (
	testTTL        = 30 * time.Second
	testAdoptEvery = 2 * time.Second
	testRetryEvery = time.Millisecond
	// testSignalEvery is told apart from the others by its length.
	testSignalEvery = 3 * time.Second
)

func startReplica(t *testing.T, w *world, leases bot.Leases, clk *sharedClock, holder string) *replica {
	t.Helper()
	return startReplicaWith(t, w, leases, clk, holder, nil, &chatFake{platform: "slack"})
}

func startReplicaWith(t *testing.T, w *world, leases bot.Leases, clk *sharedClock, holder string, elected map[string]string, a chat.Adapter) *replica {
	t.Helper()
	return startReplicaConfig(t, w, leases, clk, holder, elected, a, nil)
}

// startReplicaConfig is startReplicaWith with tweak, if not nil, applied to
// the router's configuration.
func startReplicaConfig(t *testing.T, w *world, leases bot.Leases, clk *sharedClock, holder string, elected map[string]string,
	a chat.Adapter, tweak func(*bot.RouterConfig)) *replica {
	t.Helper()
	rp := &replica{tick: make(chan struct{}), sleeping: make(chan struct{}), wake: make(chan struct{}),
		poll: make(chan struct{}), done: make(chan struct{}), looked: changes.New(), napped: changes.New()}
	sleep := func(ctx context.Context, d time.Duration) error {
		if d == testRetryEvery {
			return ctx.Err() // asking again for a held session: at once
		}
		if d == testSignalEvery {
			rp.looks.waiting()
			rp.looked.Notify()
			select {
			case <-rp.poll:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if d != testAdoptEvery {
			nap := rp.naps.Add(1)
			rp.napped.Notify()
			select {
			case <-rp.wake:
				rp.woke.Store(nap)
				rp.napped.Notify()
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		select {
		case rp.sleeping <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-rp.tick:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	cfg := bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Access:   w.access, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
		Now: clk.now,
		Sharing: &bot.Sharing{Leases: leases, Holder: holder, TTL: testTTL, AdoptEvery: testAdoptEvery,
			AdoptAfter: 10 * time.Second, RetryEvery: testRetryEvery, SignalEvery: testSignalEvery, Elected: elected, Sleep: sleep},
	}
	if tweak != nil {
		tweak(&cfg)
	}
	rp.router = newRouter(t, cfg, a)
	ctx, cancel := context.WithCancel(context.Background())
	rp.cancel = cancel
	go func() {
		defer close(rp.done)
		if err := rp.router.Run(ctx); err != nil {
			t.Errorf("%s: %v", holder, err)
		}
	}()
	t.Cleanup(func() { cancel(); <-rp.done })
	<-rp.sleeping // started: recovery is over, the loop waits for a tick
	rp.router.Wait()
	return rp
}

// adoptPass runs one adoption pass of rp and waits for what it started.
func (rp *replica) adoptPass(t *testing.T) {
	t.Helper()
	rp.tick <- struct{}{}
	<-rp.sleeping // the pass is over
	rp.router.Wait()
}

// TestReplicaLeavesAHeldSessionAlone: a message reaching a replica while
// another replica holds its session is accepted but not answered there;
// once the session is free and the message old enough, an adoption pass
// answers it, once, and later passes do nothing more.
func TestReplicaLeavesAHeldSessionAlone(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}
	b := startReplica(t, w, leases, clk, "b")

	m := msg("slack", "C1", "1.1", "U1", "T:C1:1.1", "hello")
	m.Mentioned = true
	sid, err := w.db.SessionFor(t.Context(), m.Thread)
	if err != nil {
		t.Fatal(err)
	}
	// Replica a runs the session.
	if ok, _ := leases.HoldLease(t.Context(), "session:"+sid, "a/1", clk.now(), testTTL); !ok {
		t.Fatal("could not take the lease for a")
	}
	if err := b.router.HandleMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	b.router.Wait()
	if n := len(w.srv.Requests()); n != 0 {
		t.Fatalf("b asked the model %d times for a session a holds", n)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 1 {
		t.Fatalf("unfinished %d, want the message kept for the holder", len(left))
	}

	// a is done; the message is not yet old enough for another replica.
	if err := leases.ReleaseLease(t.Context(), "session:"+sid, "a/1"); err != nil {
		t.Fatal(err)
	}
	b.adoptPass(t)
	if n := len(w.srv.Requests()); n != 0 {
		t.Fatal("adopted a message younger than AdoptAfter")
	}

	clk.advance(11 * time.Second)
	w.srv.Enqueue(llmtest.Text("hi"))
	b.adoptPass(t)
	if finals := w.replies.final(m.Key); len(finals) != 1 || finals[0] != "hi" {
		t.Fatalf("finals %q, want [hi]", finals)
	}
	b.adoptPass(t)
	if n := len(w.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1", n)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
		t.Fatalf("still unfinished: %+v", left)
	}
	if _, ok := leases.held("session:" + sid); ok {
		t.Fatal("the session's lease was not handed back after the turn")
	}
}

// TestReplicaResumesADeadReplicasTurn: a replica died mid-turn, holding
// its session's lease. Until the lease expires no other replica touches
// the turn; after, one resumes it from the store in the same reply, once.
func TestReplicaResumesADeadReplicasTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}

	m := msg("slack", "C1", "1.1", "U1", "T:C1:1.1", "what is 6×7?")
	m.Mentioned = true
	crashed(t, w, m, llm.Message{Role: llm.RoleUser, Text: m.Text, Author: "U1", Key: m.Key})
	sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
	if ok, _ := leases.HoldLease(t.Context(), "session:"+sid, "dead/1", clk.now(), testTTL); !ok {
		t.Fatal("could not take the lease for the dead replica")
	}
	clk.advance(11 * time.Second) // old enough to adopt, lease still live
	b := startReplica(t, w, leases, clk, "b")
	b.adoptPass(t)
	if n := len(w.srv.Requests()); n != 0 {
		t.Fatalf("%d model calls while the dead replica's lease was live", n)
	}

	clk.advance(testTTL)
	w.srv.Enqueue(llmtest.Text("42"))
	b.adoptPass(t)
	if finals := w.replies.final(m.Key); len(finals) != 1 || finals[0] != "42" {
		t.Fatalf("finals %q, want [42]", finals)
	}
	msgs, _ := w.db.Messages(t.Context(), sid)
	users := 0
	for _, h := range msgs {
		if h.Role == llm.RoleUser && h.Key == m.Key {
			users++
		}
	}
	if users != 1 {
		t.Fatalf("the message is in the session %d times, want once (resumed, not restarted)", users)
	}
	b.adoptPass(t)
	if n := len(w.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1", n)
	}
}

// receiverFake counts, across replicas, how many run its platform's Run.
type receiverFake struct {
	*chatFake
	running *atomic.Int32
	changed chan struct{}
}

func (f receiverFake) Run(ctx context.Context, _ chat.Handler) error {
	f.running.Add(1)
	f.changed <- struct{}{}
	<-ctx.Done()
	f.running.Add(-1)
	f.changed <- struct{}{}
	return nil
}

// TestElectedReceiverFailsOver: with the platform elected, one replica
// receives and the other stands by; when the receiver stops, the other
// takes over.
func TestElectedReceiverFailsOver(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}
	running := &atomic.Int32{}
	changed := make(chan struct{}, 16)
	elected := map[string]string{"slack": "receive:slack"}
	a := startReplicaWith(t, w, leases, clk, "a", elected, receiverFake{&chatFake{platform: "slack"}, running, changed})
	<-changed
	b := startReplicaWith(t, w, leases, clk, "b", elected, receiverFake{&chatFake{platform: "slack"}, running, changed})
	b.wake <- struct{}{} // b tries again, and stands by
	if n := running.Load(); n != 1 {
		t.Fatalf("%d replicas receive, want 1", n)
	}
	if l, _ := leases.held("receive:slack"); l.holder[:2] != "a/" {
		t.Fatalf("the receiver's lease is %q's, want a's", l.holder)
	}

	a.cancel() // a stops, and hands the lease back
	<-changed
	<-a.done
	b.wake <- struct{}{}
	<-changed
	if n := running.Load(); n != 1 {
		t.Fatalf("%d replicas receive after the failover, want 1", n)
	}
	if l, _ := leases.held("receive:slack"); l.holder[:2] != "b/" {
		t.Fatalf("the receiver's lease is %q's, want b's", l.holder)
	}
}

// TestReplicaAdoptsItsSessionsWorkBeforeLetGo: a message reaches replica b
// while replica a is answering in the same conversation. b leaves it; a,
// once its turn is over and before it hands the session back, answers it
// too — without waiting for an adoption pass (none runs in this test).
func TestReplicaAdoptsItsSessionsWorkBeforeLetGo(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}
	a := startReplica(t, w, leases, clk, "a")
	b := startReplica(t, w, leases, clk, "b")

	first := msg("slack", "C1", "1.1", "U1", "T:C1:1.1", "first")
	first.Mentioned = true
	second := msg("slack", "C1", "1.1", "U1", "T:C1:1.2", "second")
	second.Mentioned = true
	w.srv.Enqueue(llmtest.Text("one ", "two ", "three").Paced(300*time.Millisecond), llmtest.Text("again"))
	if err := a.router.HandleMessage(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	<-w.replies.streaming // a holds the session and is writing
	if err := b.router.HandleMessage(t.Context(), second); err != nil {
		t.Fatal(err)
	}
	b.router.Wait()
	a.router.Wait()
	for key, want := range map[string]string{first.Key: "one two three", second.Key: "again"} {
		if finals := w.replies.final(key); len(finals) != 1 || finals[0] != want {
			t.Errorf("finals of %s = %q, want [%q]", key, finals, want)
		}
	}
	if n := len(w.srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
		t.Errorf("still unfinished: %+v", left)
	}
}

// TestReplicaHandsBackALostSession: while a replica answers, another takes
// the session's lease (this one's renewals failed for most of a TTL, as a
// partition would leave it). At its next renewal the replica stops the
// turn and hands it back unfinished — no final answer from it — for the
// new holder to resume, rather than run it beside that holder.
func TestReplicaHandsBackALostSession(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	leases := &memLeases{m: map[string]memLease{}}
	clk := &sharedClock{}
	a := startReplica(t, w, leases, clk, "a")

	m := msg("slack", "C1", "1.1", "U1", "T:C1:1.1", "a long one")
	m.Mentioned = true
	w.srv.Enqueue(llmtest.Text("one ", "two ", "three ", "four ", "five").Paced(time.Second))
	if err := a.router.HandleMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	<-w.replies.streaming // a holds the session and is writing
	sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
	leases.mu.Lock()
	leases.m["session:"+sid] = memLease{holder: "b/1", until: clk.now().Add(time.Hour)}
	leases.mu.Unlock()
	a.wake <- struct{}{} // a's renewal
	a.router.Wait()
	if finals := w.replies.final(m.Key); len(finals) != 0 {
		t.Fatalf("a finished %q after losing the session", finals)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 1 {
		t.Fatalf("unfinished %d, want the message handed back", len(left))
	}
	if l, _ := leases.held("session:" + sid); l.holder != "b/1" {
		t.Fatalf("the lease is %q's after a let go, want b's untouched", l.holder)
	}
}
