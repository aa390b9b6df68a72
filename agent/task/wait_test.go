package task_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
)

// The wait tool returns when the author writes or when its timeout passes
// on the injected clock (a synctest bubble's: no real time is spent), and
// refuses what it cannot wait for.
func TestWait(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     string
		noWake   bool
		replyAt  time.Duration // when the author writes; 0: never
		remindAt time.Duration // when one of their reminders is shown; 0: never
		want     string        // the result's start, or the error's part
		wantErr  bool
		took     time.Duration
	}{
		{"a reply ends the wait", `{"for":"reply","timeout_seconds":600}`, false, 3 * time.Minute, 0, task.WaitReplied, false, 3 * time.Minute},
		{"the timeout ends it", `{"for":"reply","timeout_seconds":600}`, false, 0, 0, task.WaitTimedOut + " after 10m0s", false, 10 * time.Minute},
		{"a reply after the timeout is too late", `{"for":"reply","timeout_seconds":60}`, false, 2 * time.Minute, 0, task.WaitTimedOut, false, time.Minute},
		{"a reminder does not end a wait for a reply", `{"for":"reply","timeout_seconds":600}`, false, 0, time.Minute, task.WaitTimedOut, false, 10 * time.Minute},
		{"a reminder ends a wait for it", `{"for":"reminder","timeout_seconds":1800}`, false, 0, 25 * time.Minute,
			task.WaitReminded + ` in this conversation: "check the deploy"`, false, 25 * time.Minute},
		{"a reply does not end a wait for a reminder", `{"for":"reminder","timeout_seconds":600}`, false, time.Minute, 0, task.WaitNoReminder + " after 10m0s", false, 10 * time.Minute},
		{"something else", `{"for":"email","timeout_seconds":60}`, false, 0, 0, `want "reply" or "reminder"`, true, 0},
		{"no timeout", `{"for":"reply","timeout_seconds":0}`, false, 0, 0, "between 1 and 1800", true, 0},
		{"too long", `{"for":"reply","timeout_seconds":3600}`, false, 0, 0, "between 1 and 1800", true, 0},
		{"nobody can wake it", `{"for":"reply","timeout_seconds":60}`, true, 0, 0, "end the turn", true, 0},
		{"no reminder can reach it", `{"for":"reminder","timeout_seconds":60}`, true, 0, 0, "no reminder can reach", true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				wait, err := task.Wait(nil) // the runner's clock
				if err != nil {
					t.Fatal(err)
				}
				wake, reminded := make(chan struct{}, 1), make(chan string, 1)
				// A runner left to its real clock, which in the bubble is the bubble's.
				c := agent.Caller{UserKey: "slack:U1", Runner: &agent.Runner{}}
				if !tt.noWake {
					c.Wake, c.Reminded = wake, reminded
				}
				sent := make(chan struct{})
				go func() {
					defer close(sent)
					if tt.replyAt > 0 {
						time.Sleep(tt.replyAt)
						wake <- struct{}{} // buffered: a reply nobody waits for any more
					}
					if tt.remindAt > 0 {
						time.Sleep(tt.remindAt)
						reminded <- "check the deploy"
					}
				}()
				defer func() { <-sent }()
				start := time.Now()
				got, err := wait.Execute(t.Context(), c, json.RawMessage(tt.args))
				if tt.wantErr {
					if err == nil || !strings.Contains(err.Error(), tt.want) {
						t.Fatalf("err %v, want one saying %q", err, tt.want)
					}
					return
				}
				if err != nil || !strings.HasPrefix(got, tt.want) {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				if took := time.Since(start); took != tt.took {
					t.Fatalf("waited %s, want %s", took, tt.took)
				}
			})
		})
	}
}

// A stopped turn stops its wait at once.
func TestWaitStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wait, _ := task.Wait(nil)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		_, err := wait.Execute(ctx, agent.Caller{Wake: make(chan struct{}), Runner: &agent.Runner{}}, json.RawMessage(`{"for":"reply","timeout_seconds":600}`))
		if err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Fatalf("err %v", err)
		}
	})
}
