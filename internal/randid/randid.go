// Package randid makes the ids that need no coordination: of sessions,
// records, approvals and the buttons that name them.
package randid

import (
	"crypto/rand"
	"encoding/hex"
)

// New returns 128 bits from crypto/rand in hex: 32 characters,
// unguessable, short enough for any button payload, and an even chance of
// one collision takes some 2⁶⁴ ids.
func New() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand panics rather than return an error
	return hex.EncodeToString(b[:])
}
