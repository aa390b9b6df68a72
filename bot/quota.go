package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
	"golang.org/x/time/rate"
)

// Limits bound what one person can ask of Parley, so that nobody exhausts
// it for everyone else. Zero means no limit. Admins are exempt from the
// rate and the token budget.
type Limits struct {
	// TurnsPerMinute is how many messages a person may send Parley a
	// minute (each may start a turn), in bursts of as many.
	TurnsPerMinute int
	// DailyTokens is a person's budget of model tokens (prompt and answer)
	// per UTC day.
	DailyTokens int
	// QueueMessages and QueueBytes bound what waits in one conversation
	// while a turn runs: each waiting message is carried into a later model
	// call.
	QueueMessages int
	QueueBytes    int
	// MessageChars is the longest message Parley reads; the rest is cut,
	// and both the person and the model are told.
	MessageChars int
	// DailyCost is what a person's turns may cost per UTC day, in US
	// dollars (costs_limits.go; needs RouterConfig.Costs).
	DailyCost float64
}

// quotas keeps the per-person rate (in memory: a restart forgives) and the
// daily token budget (in the store: a restart does not). An agent may hold
// people to other limits where it answers (Agent.Limits): the checks take
// the limits that hold, the counts stay the person's.
type quotas struct {
	lim Limits // the top level's
	// counted: some limit bounds daily tokens, so everyone's are counted.
	counted bool
	access  Access
	kv      chat.KV
	now     func() time.Time

	mu    sync.Mutex
	rates map[string]*rate.Limiter
	// swept is when full limiters were last dropped from rates.
	swept time.Time
}

// newQuotas keeps lim; counted adds that an agent bounds daily tokens
// where lim does not.
func newQuotas(lim Limits, counted bool, access Access, kv chat.KV, now func() time.Time) *quotas {
	return &quotas{lim: lim, counted: counted || lim.DailyTokens > 0, access: access, kv: kv, now: now, rates: map[string]*rate.Limiter{}}
}

// A full limiter — its person has not written for a minute or so — is
// dropped (dropping a full bucket grants nothing) when a new person comes
// and the last sweep is rateSweep old, or rates holds maxRates: rates
// holds the people of the last minutes, not everyone who ever wrote.
const (
	rateSweep = time.Minute
	maxRates  = 10000
)

// admit decides whether u may have another message answered now by
// agent, whose limits are lim; notice says why not, for u alone.
func (q *quotas) admit(ctx context.Context, u chat.User, lim Limits, agent string) (notice string, err error) {
	if q.access.IsAdmin(u) {
		return "", nil
	}
	if n := lim.DailyTokens; n > 0 {
		used, err := q.usedToday(ctx, u)
		if err != nil {
			return "", err
		}
		if used >= n {
			return fmt.Sprintf("You have used today's budget of %d model tokens, so I will not answer this. It renews at 00:00 UTC.", n), nil
		}
	}
	if n := lim.TurnsPerMinute; n > 0 {
		if r := q.rate(u, n, agent).ReserveN(q.now(), 1); r.DelayFrom(q.now()) > 0 {
			wait := r.DelayFrom(q.now())
			r.CancelAt(q.now())
			return fmt.Sprintf("You are sending me more than %d messages a minute, so I will not answer this one. Try again in %s.",
				n, wait.Round(time.Second)), nil
		}
	}
	return "", nil
}

// rate is u's limiter of n turns a minute where agent answers: the one
// they have everywhere at the top level's rate, their own for agent at
// another (a bucket of another size).
func (q *quotas) rate(u chat.User, n int, agent string) *rate.Limiter {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := u.Key()
	if n != q.lim.TurnsPerMinute {
		k += " " + agent
	}
	lim, ok := q.rates[k]
	if !ok {
		if now := q.now(); len(q.rates) >= maxRates || now.Sub(q.swept) >= rateSweep {
			q.swept = now
			for key, l := range q.rates {
				if l.TokensAt(now) >= float64(l.Burst()) {
					delete(q.rates, key)
				}
			}
		}
		lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(n)), n)
		q.rates[k] = lim
	}
	return lim
}

// usageKey holds a person's token use as "<UTC day> <tokens>": one row a
// person, overwritten each day.
func usageKey(u chat.User) string { return "tokens:" + u.Key() }

// usedToday is how many tokens u has used this UTC day.
func (q *quotas) usedToday(ctx context.Context, u chat.User) (int, error) {
	v, ok, err := q.kv.Get(ctx, usageKey(u))
	if err != nil || !ok {
		return 0, err
	}
	day, n, _ := strings.Cut(v, " ")
	if day != q.now().UTC().Format(time.DateOnly) {
		return 0, nil
	}
	used, _ := strconv.Atoi(n)
	return used, nil
}

// spend adds tokens to u's use today.
func (q *quotas) spend(ctx context.Context, u chat.User, tokens int) error {
	if !q.counted || tokens <= 0 || q.access.IsAdmin(u) {
		return nil
	}
	q.mu.Lock() // one read-modify-write at a time in this process
	defer q.mu.Unlock()
	used, err := q.usedToday(ctx, u)
	if err != nil {
		return err
	}
	day := q.now().UTC().Format(time.DateOnly)
	return q.kv.Set(ctx, usageKey(u), day+" "+strconv.Itoa(used+tokens))
}

// status says what is left of u's limits where agent answers, whose
// limits are lim, for /status; "" for none.
func (q *quotas) status(ctx context.Context, u chat.User, lim Limits, agent string) (string, error) {
	if q.access.IsAdmin(u) || lim.DailyTokens <= 0 && lim.TurnsPerMinute <= 0 {
		return "", nil
	}
	var parts []string
	if n := lim.TurnsPerMinute; n > 0 {
		left := int(q.rate(u, n, agent).TokensAt(q.now()))
		parts = append(parts, fmt.Sprintf("%d of %d messages left this minute", max(left, 0), n))
	}
	if n := lim.DailyTokens; n > 0 {
		used, err := q.usedToday(ctx, u)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%d of %d tokens left today", max(n-used, 0), n))
	}
	return "Your limits: " + strings.Join(parts, ", "), nil
}

// cut shortens a message longer than MessageChars, saying so to the model
// in the text itself; cut reports how long it was, 0 if it was not cut.
func (q *quotas) cut(text string) (kept string, was int) {
	n := q.lim.MessageChars
	if n <= 0 {
		return text, 0
	}
	runes := utf8.RuneCountInString(text)
	if runes <= n {
		return text, 0
	}
	end := 0
	for i := range text {
		if n == 0 {
			end = i
			break
		}
		n--
	}
	return text[:end] + fmt.Sprintf("\n\n[Parley: this message was cut to its first %d of %d characters.]", q.lim.MessageChars, runes), runes
}
