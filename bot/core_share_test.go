package bot_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// memReplicas is bot.Replicas in memory, as the stores keep it.
type memReplicas struct {
	mu    sync.Mutex
	seen  map[string]time.Time
	beats int
}

func (m *memReplicas) Beat(_ context.Context, id string, now, since time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen[id] = now
	m.beats++
	n := 0
	for _, at := range m.seen {
		if !at.Before(since) {
			n++
		}
	}
	return n, nil
}

func (m *memReplicas) Leave(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, id)
	return nil
}

func (m *memReplicas) registered(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.seen[id]
	return ok
}

// TestReplicaCountsAsSenderWhileItAnswers: a replica that only stands by
// is not in the register, so the replicas that answer keep the whole
// budget between them; it joins the moment a turn starts, beats while it
// answers and for a while after, then leaves, and leaves on shutdown.
func TestReplicaCountsAsSenderWhileItAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := &memReplicas{seen: map[string]time.Time{}}
		w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: chat.Capabilities{MaxLen: 4000}}))
		w.setup = func(cfg *bot.CoreConfig, _ *store.DB) {
			cfg.Sharing = &bot.Sharing{Leases: &memLeases{m: map[string]memLease{}}, Replicas: reg, Holder: "r1"}
		}
		w.start(t, llm.Response{Text: "hi"})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if reg.registered("r1") {
			t.Fatal("a replica that answered nothing is counted among the senders")
		}
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "hello")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !reg.registered("r1") {
			t.Fatal("the replica answering is not counted among the senders")
		}
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if !reg.registered("r1") {
			t.Fatal("the replica left the register 20 s after its answer; want it counted for 30 s")
		}
		time.Sleep(15 * time.Second)
		synctest.Wait()
		if reg.registered("r1") {
			t.Fatal("the replica is still counted 35 s after its last answer")
		}
		if err := w.fake.InjectMessage(t.Context(), coreMention("k2", "ana", "again")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		w.stop(t)
		if reg.registered("r1") {
			t.Fatal("the replica is still counted after it stopped")
		}
	})
}
