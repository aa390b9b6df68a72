package outbound

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/chat"
)

func TestPacerDropsIdleBuckets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPacer(PacerConfig{
			Platform:     "telegram",
			Capabilities: chat.Capabilities{EditEvery: time.Second, EditBurst: 1},
			IdleAfter:    time.Minute,
		})
		for i := range 1000 {
			if err := p.Wait(t.Context(), p.Key(chat.Thread{Platform: "telegram", Chat: fmt.Sprint(i)})); err != nil {
				t.Fatal(err)
			}
		}
		penalized := p.Key(chat.Thread{Platform: "telegram", Chat: "penalized"})
		p.Penalize(penalized, 5*time.Minute)
		if n := p.bucketCount(); n != 1001 {
			t.Fatalf("%d buckets, want 1001", n)
		}
		time.Sleep(2 * time.Minute)
		p.Wait(t.Context(), p.Key(chat.Thread{Platform: "telegram", Chat: "new"}))
		if n := p.bucketCount(); n != 2 {
			t.Errorf("%d buckets after the idle ones were swept, want 2 (the penalized one and the new one)", n)
		}
		time.Sleep(5 * time.Minute)
		p.Wait(t.Context(), p.Key(chat.Thread{Platform: "telegram", Chat: "newer"}))
		if n := p.bucketCount(); n != 1 {
			t.Errorf("%d buckets once the penalty is over, want 1", n)
		}
	})
}

// TestPacerHoldsRecentChats: with the default IdleAfter, a pacer keyed by
// chat holds the chats of the last minutes, not every chat ever paced.
func TestPacerHoldsRecentChats(t *testing.T) {
	tests := []struct {
		name             string
		perMinute, hours int
		most             int
	}{
		{name: "1,000 new chats a minute", perMinute: 1000, hours: 1, most: 2*1000 + 1},
		{name: "a new chat a minute", perMinute: 1, hours: 24, most: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := NewPacer(PacerConfig{Platform: "discord",
					Capabilities: chat.Capabilities{EditEvery: 1100 * time.Millisecond, EditBurst: 2, EditScope: chat.PacePerChat}})
				most, chatN := 0, 0
				for range tt.hours * 60 {
					for range tt.perMinute {
						if err := p.Wait(t.Context(), p.Key(chat.Thread{Platform: "discord", Chat: fmt.Sprint(chatN)})); err != nil {
							t.Fatal(err)
						}
						chatN++
						most = max(most, p.bucketCount())
					}
					time.Sleep(time.Minute)
				}
				if most > tt.most {
					t.Errorf("%d buckets held after %d chats, want ≤ %d", most, chatN, tt.most)
				}
			})
		})
	}
}

// bucketCount returns how many buckets the pacer holds.
func (p *Pacer) bucketCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buckets)
}
