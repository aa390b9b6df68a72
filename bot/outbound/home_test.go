package outbound_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// homePage is a platform with a page per person; each call answers the
// next of errs (nil once they run out).
type homePage struct {
	*bottest.Adapter
	errs  []error
	calls []time.Time
	shown []chat.Home
}

func (p *homePage) PublishHome(_ context.Context, _ chat.User, h chat.Home) error {
	p.calls = append(p.calls, time.Now())
	if len(p.errs) > 0 {
		err := p.errs[0]
		p.errs = p.errs[1:]
		if err != nil {
			return err
		}
	}
	p.shown = append(p.shown, h)
	return nil
}

// TestHome: a page is published through the pacer, a rate limit waited
// out (and the bucket penalized), any other failure returned at once; a
// platform without pages says so.
func TestHome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &homePage{Adapter: bottest.New(bottest.Config{Platform: "slack", LimitEvery: -1})}
		o, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{p}})
		if err != nil {
			t.Fatal(err)
		}
		ann := chat.User{Platform: "slack", ID: "U1"}
		home := chat.Home{Title: "t", Lines: []string{"x"}}
		p.errs = []error{&chat.RateLimitError{RetryAfter: 2 * time.Second, Err: errors.New("429")}}
		start := time.Now()
		if err := o.Home(t.Context(), "T1", ann, home); err != nil {
			t.Fatal(err)
		}
		if len(p.shown) != 1 || len(p.calls) != 2 || p.calls[1].Sub(start) < 2*time.Second {
			t.Errorf("after a 429: shown %d in calls at %v", len(p.shown), p.calls)
		}
		refused := errors.New("invalid_arguments")
		p.errs = []error{refused}
		if err := o.Home(t.Context(), "T1", ann, home); !errors.Is(err, refused) || len(p.calls) != 3 {
			t.Errorf("a refusal: %v after %d calls, want it returned at once", err, len(p.calls))
		}

		plain, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{bottest.New(bottest.Config{Platform: "telegram"})}})
		if err != nil {
			t.Fatal(err)
		}
		if err := plain.Home(t.Context(), "", chat.User{Platform: "telegram", ID: "1"}, home); !errors.Is(err, outbound.ErrNoHome) {
			t.Errorf("a platform without pages: %v", err)
		}
	})
}
