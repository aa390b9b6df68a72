package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/parleybot/parley/internal/clock"
)

// Sleep waits d on a real timer, or until ctx ends. It is the default
// Sleep of every component that takes an injectable clock, adapters
// included; it is internal/clock's, which agent (below bot) shares.
func Sleep(ctx context.Context, d time.Duration) error { return clock.Sleep(ctx, d) }

// randomToken returns 128 bits from crypto/rand in hex: 32 characters,
// unguessable, short enough for any button payload.
func randomToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand panics rather than return an error
	return hex.EncodeToString(b[:])
}
