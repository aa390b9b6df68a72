package outbound_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// TestPacerShareSplitsTheBotsBudget: with n replicas sending for one bot,
// each takes an n-th of the bot-wide budget (Telegram's 30 a second), so
// that together they stay within it; a chat's own budget is not split, and
// a share that changes takes effect at once.
func TestPacerShareSplitsTheBotsBudget(t *testing.T) {
	caps := chat.Capabilities{EditEvery: time.Second, Overall: time.Second / 30}
	tests := []struct {
		share     int
		want, tol int // calls granted in 10 s over 60 chats
	}{
		{1, 30 + 300, 2},
		{2, 15 + 150, 2},
		{3, 10 + 100, 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("share %d", tt.share), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := outbound.NewPacer(outbound.PacerConfig{Platform: "telegram", Capabilities: caps})
				p.SetShare(tt.share)
				if got := granted(p, 60, 10*time.Second); got < tt.want-tt.tol || got > tt.want+tt.tol {
					t.Fatalf("%d calls in 10 s, want %d", got, tt.want)
				}
			})
		})
	}
	t.Run("one chat is not split", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := outbound.NewPacer(outbound.PacerConfig{Platform: "telegram", Capabilities: caps})
			p.SetShare(3)
			if got := granted(p, 1, 10*time.Second); got < 10 || got > 11 {
				t.Fatalf("%d calls in 10 s in one chat, want its own 1 a second", got)
			}
		})
	})
	t.Run("a replica leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := outbound.NewPacer(outbound.PacerConfig{Platform: "telegram", Capabilities: caps})
			p.SetShare(3)
			first := granted(p, 60, 5*time.Second) // 10 + 50
			p.SetShare(1)
			second := granted(p, 60, 5*time.Second) // up to 30 a second now
			if first > 62 || second < 140 {
				t.Fatalf("granted %d then %d, want ~60 at a third and ~150 at the whole", first, second)
			}
		})
	})
}

// granted counts the calls p grants in d to senders in chats, each
// sending as fast as it is let.
func granted(p *outbound.Pacer, chats int, d time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n atomic.Int64
	var wg sync.WaitGroup
	for i := range chats {
		key := p.Key(chat.Thread{Platform: "telegram", Chat: fmt.Sprint(i)})
		wg.Go(func() {
			for p.WaitFirst(ctx, key) == nil {
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return int(n.Load())
}

// TestPacerRejoinSpendsNoBurst: a replica that starts answering among
// others (one that died may have just spent the platform's burst) sends
// at its rate from the first call, with no burst on top.
func TestPacerRejoinSpendsNoBurst(t *testing.T) {
	caps := chat.Capabilities{EditEvery: time.Second, Overall: time.Second / 30}
	for _, tt := range []struct {
		rejoin bool
		want   int // calls in the first second over 60 chats
	}{
		{false, 30 + 30},
		{true, 30},
	} {
		t.Run(fmt.Sprintf("rejoin %t", tt.rejoin), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := outbound.NewPacer(outbound.PacerConfig{Platform: "telegram", Capabilities: caps})
				if tt.rejoin {
					p.Rejoin()
				}
				if got := granted(p, 60, time.Second); got < tt.want-2 || got > tt.want+1 {
					t.Fatalf("%d calls in the first second, want %d", got, tt.want)
				}
			})
		})
	}
}
