package rowdata

import (
	"crypto/rand"
	"encoding/hex"
)

// RandomID returns 128 random bits in hex, the default id of a new
// session or record in both engines: it needs no coordination between
// processes or replicas, and an even chance of one collision takes some
// 2⁶⁴ ids.
func RandomID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand panics rather than return an error
	return hex.EncodeToString(b[:])
}
