package rowdata

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/bot"
)

// What the web console's records (webconsole.Auth) and the audit log
// (bot.AuditLog) check the same way on both engines, before any SQL.

// PruneAfter is how long an expired login or session row stays: adding
// one deletes those that expired more than this before it was created.
const PruneAfter = 24 * time.Hour

// MinRevokePrefix is the shortest prefix RevokeSessions takes: a
// session's ID as the console shows it.
const MinRevokePrefix = 12

// RevokePrefix checks a prefix of session hashes for RevokeSessions and
// returns it in lower case, as the hashes are kept: "" (every session),
// or at least MinRevokePrefix hexadecimal digits. Anything else is
// refused, so a prefix can never act as a pattern (no %, _, * or ?) nor
// end sessions it was not meant to.
func RevokePrefix(prefix string) (string, error) {
	if prefix == "" {
		return "", nil
	}
	if len(prefix) < MinRevokePrefix {
		return "", fmt.Errorf("session prefix %q is shorter than %d characters", prefix, MinRevokePrefix)
	}
	for _, r := range prefix {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return "", fmt.Errorf("session prefix %q is not hexadecimal", prefix)
		}
	}
	return strings.ToLower(prefix), nil
}

// MaxAuditEntries is the most entries AuditEntries returns at once.
const MaxAuditEntries = 1000

// AuditLimit checks AuditEntries' limit: 1 to MaxAuditEntries.
func AuditLimit(limit int) error {
	if limit < 1 || limit > MaxAuditEntries {
		return fmt.Errorf("limit %d is not between 1 and %d", limit, MaxAuditEntries)
	}
	return nil
}

// AuditAction is how a filter's Action selects: an exact action, or —
// when it ends in "." — every action starting with it, which is every
// action in [lo, hi) by bytes (hi is the prefix with its final "."
// raised to "/", the next byte). A range rather than LIKE, so that % and
// _ in an action are only themselves.
func AuditAction(action string) (lo, hi string, prefix bool) {
	if base, ok := strings.CutSuffix(action, "."); ok {
		return action, base + "/", true
	}
	return action, "", false
}

// ErrNoHash is AddLogin's and AddSession's refusal of a record without a
// hash.
var ErrNoHash = errors.New("no hash")

// AuditCheck is a minimal check of an entry before it is added.
func AuditCheck(e bot.AuditEntry) error {
	if e.Action == "" {
		return errors.New("an audit entry needs an action")
	}
	return nil
}
