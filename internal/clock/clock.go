// Package clock holds the one real Sleep behind every injectable clock.
//
// Components that wait take their clock as two fields, Now func()
// time.Time and Sleep func(ctx, d) error, so that a test can drive time
// (bottest.Clock, or testing/synctest, where the real timer is already
// fake). When a field is left nil the component uses time.Now and Sleep
// from here. It lives in internal/ rather than in package bot because
// agent, which bot imports, needs it too.
package clock

import (
	"context"
	"time"
)

// Or returns now and sleep, each replaced by the real one (time.Now,
// Sleep) when nil: a Config's clock with its defaults filled in.
func Or(now func() time.Time, sleep func(context.Context, time.Duration) error) (func() time.Time, func(context.Context, time.Duration) error) {
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = Sleep
	}
	return now, sleep
}

// Sleep waits d on a real timer, or until ctx ends, and returns ctx's
// error in the latter case. A d of zero or less does not wait, but still
// reports an ended ctx, so a retry loop stops at once when it should.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
