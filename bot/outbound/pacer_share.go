package outbound

import (
	"strings"
	"time"
)

// budget is a bucket's rate: one call per every, in bursts of up to burst.
type budget struct {
	every time.Duration
	burst float64
}

// sharedScope reports whether every replica of the bot draws from the
// bucket of scope: the bot-wide budget (Telegram's ~30 messages a second),
// a workspace's (Slack's chat.update) or a global one. A chat's budget is
// not shared: a chat's replies come from the replica holding its session.
func sharedScope(scope string) bool {
	return scope == overallScope || scope == "global" || strings.HasPrefix(scope, "space:")
}

// newBucket is key's bucket, full, at this replica's share. The caller
// holds p.mu.
func (p *Pacer) newBucket(key PaceKey, now time.Time) *paceBucket {
	every, burst := p.budget(key)
	b := &paceBucket{base: budget{max(every, 0), float64(burst)}, shared: sharedScope(key.Scope), at: now}
	b.every, b.burst = b.base.shareOf(b.sharers(p.share))
	b.tokens = b.burst
	if b.shared && p.emptyShared {
		b.tokens = 0
	}
	return b
}

// Rejoin is called when this replica starts answering again among others:
// its bot-wide and workspace budgets give up their burst credit, and new
// ones start without it. Another replica may have spent the platform's
// burst a moment ago — one that just died, whose answers this one takes
// over — and a full bucket here would draw 429s. The budget then refills
// at this replica's rate.
func (p *Pacer) Rejoin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.emptyShared = true
	now := p.cfg.Now()
	for _, b := range p.buckets {
		if !b.shared {
			continue
		}
		b.mu.Lock()
		b.refill(now)
		b.tokens = 0
		b.at = now
		b.mu.Unlock()
	}
}

// sharers is how many replicas split b: share for shared buckets, else 1.
func (b *paceBucket) sharers(share int) int {
	if !b.shared {
		return 1
	}
	return max(share, 1)
}

// shareOf is one of n equal shares of the budget: n times the interval,
// an n-th of the burst (at least one call).
func (bg budget) shareOf(n int) (time.Duration, float64) {
	return bg.every * time.Duration(n), max(bg.burst/float64(n), 1)
}

// SetShare tells the pacer that n replicas (itself included) now send for
// the bot: each bot-wide and workspace budget is split n ways, so that
// together the replicas stay within what the platform allows the bot
// (docs/replicas.md). Tokens above the new burst are dropped; a budget
// that grows refills at its new rate.
func (p *Pacer) SetShare(n int) {
	n = max(n, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if max(p.share, 1) == n {
		return
	}
	p.share = n
	now := p.cfg.Now()
	for _, b := range p.buckets {
		if !b.shared {
			continue
		}
		b.mu.Lock()
		b.refill(now)
		b.every, b.burst = b.base.shareOf(n)
		b.tokens = min(b.tokens, b.burst)
		b.mu.Unlock()
	}
}
