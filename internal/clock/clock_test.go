package clock

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleep(t *testing.T) {
	tests := []struct {
		name    string
		d       time.Duration
		cancel  time.Duration // when ctx ends; 0 never
		want    error
		elapsed time.Duration
	}{
		{name: "waits d", d: time.Minute, want: nil, elapsed: time.Minute},
		{name: "zero does not wait", d: 0, elapsed: 0},
		{name: "negative does not wait", d: -time.Second, elapsed: 0},
		{name: "ends with ctx", d: time.Hour, cancel: time.Second, want: context.Canceled, elapsed: time.Second},
		{name: "an ended ctx is reported without waiting", d: 0, cancel: -1, want: context.Canceled, elapsed: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				switch {
				case tt.cancel < 0:
					cancel()
				case tt.cancel > 0:
					time.AfterFunc(tt.cancel, cancel)
				}
				start := time.Now()
				err := Sleep(ctx, tt.d)
				if !errors.Is(err, tt.want) && err != tt.want {
					t.Errorf("Sleep = %v, want %v", err, tt.want)
				}
				if got := time.Since(start); got != tt.elapsed {
					t.Errorf("Sleep took %v, want %v", got, tt.elapsed)
				}
			})
		})
	}
}

func TestOr(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fakeNow := func() time.Time { return fixed }
	slept := errors.New("slept")
	fakeSleep := func(context.Context, time.Duration) error { return slept }
	tests := []struct {
		name          string
		now           func() time.Time
		sleep         func(context.Context, time.Duration) error
		wantFixed     bool
		wantFakeSleep bool
	}{
		{"both nil: real", nil, nil, false, false},
		{"both given: kept", fakeNow, fakeSleep, true, true},
		{"now given", fakeNow, nil, true, false},
		{"sleep given", nil, fakeSleep, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now, sleep := Or(tt.now, tt.sleep)
			if got := now().Equal(fixed); got != tt.wantFixed {
				t.Errorf("now() = %v, fixed %v, want fixed %v", now(), got, tt.wantFixed)
			}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			err := sleep(ctx, time.Hour)
			if got := err == slept; got != tt.wantFakeSleep {
				t.Errorf("sleep = %v, want the fake's: %v", err, tt.wantFakeSleep)
			}
			if !tt.wantFakeSleep && !errors.Is(err, context.Canceled) {
				t.Errorf("the real sleep with an ended context = %v, want context.Canceled", err)
			}
		})
	}
}
