package main

import (
	"sync"
	"time"
)

// callLog hears of Parley's API calls from the fake platform, as the fake
// records each one (its WithCallObserver): which person's chat changed,
// and when. The watcher then looks at those chats only, and times an
// answer by the call that made it visible rather than by when it looked.
//
// note runs under the fake's lock, so it only appends and signals; it
// never blocks and never calls the fake.
type callLog struct {
	mu      sync.Mutex
	changed []change
	edits   int
	wake    chan struct{} // has a value when changed is not empty
}

// change is a call that changed what a person sees in their chat.
type change struct {
	person int
	at     time.Time
}

func newCallLog() *callLog { return &callLog{wake: make(chan struct{}, 1)} }

// note records one call the fake accepted: person is the person whose
// chat it touched (-1: none of theirs), shows whether it changed a
// message they see, edit whether it was an edit of one (or a draft or
// stream append: what a platform's edit budget pays for).
func (l *callLog) note(person int, shows, edit bool) {
	if person < 0 || !shows && !edit {
		return
	}
	at := time.Now()
	l.mu.Lock()
	if edit {
		l.edits++
	}
	if shows {
		l.changed = append(l.changed, change{person: person, at: at})
	}
	l.mu.Unlock()
	if shows {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// take returns the changes since the last take, oldest first.
func (l *callLog) take() []change {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.changed
	l.changed = nil
	return out
}

// editCount is how many edits the platform accepted.
func (l *callLog) editCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.edits
}
