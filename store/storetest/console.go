package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/parleybot/parley/webconsole/signin"
)

// consoleTests cover signin.Auth: the web console's one-time sign-in
// links and the sessions they open.
var consoleTests = []test{
	{"Logins", testLogins},
	{"LoginRace", testLoginRace},
	{"LiveSession", testLiveSession},
	{"SessionList", testSessionList},
	{"Revoke", testRevoke},
	{"RevokeRefused", testRevokeRefused},
	{"Prune", testConsolePrune},
	{"Reopen", testConsoleReopen},
}

// hashFor is a hash as the console keeps them (64 hex digits) for name:
// its SHA-256, whose first digits are name's own when name is
// hexadecimal, so that tests choose the prefixes sessions share.
func hashFor(name string) string {
	sum := sha256.Sum256([]byte(name))
	h := hex.EncodeToString(sum[:])
	if strings.Trim(name, "0123456789abcdef") != "" {
		return h
	}
	return name + h[len(name):]
}

// login is a login for user, created at epoch+created and expiring ttl
// later.
func login(prefix, user string, admin bool, created, ttl time.Duration) signin.Login {
	return signin.Login{Hash: hashFor(prefix), User: user, Admin: admin,
		Created: epoch.Add(created), Expires: epoch.Add(created + ttl)}
}

// consoleSession is a session created at epoch+created and expiring ttl
// later.
func consoleSession(prefix, user string, created, ttl time.Duration) signin.Session {
	return signin.Session{Hash: hashFor(prefix), User: user, Admin: user == "operator",
		CSRF: "csrf-" + prefix, Created: epoch.Add(created), Expires: epoch.Add(created + ttl),
		Agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0 « " + prefix + " »"}
}

// addLogin is a step calling AddLogin, which must succeed (fails: must
// not).
func addLogin(on int, l signin.Login, fails bool) step {
	return step{on, fmt.Sprintf("AddLogin(%.12s…)", l.Hash), func(ctx context.Context, h Store) error {
		return wantFailure(h.AddLogin(ctx, l), fails)
	}}
}

// useLogin is a step calling UseLogin at epoch+at, which must take want
// (nil: must take nothing).
func useLogin(on int, hash string, at time.Duration, want *signin.Login) step {
	return step{on, fmt.Sprintf("UseLogin(%.12s…, +%v)", hash, at), func(ctx context.Context, h Store) error {
		got, ok, err := h.UseLogin(ctx, hash, epoch.Add(at))
		switch {
		case err != nil:
			return err
		case want == nil && ok:
			return fmt.Errorf("took %+v; want nothing", got)
		case want != nil && !ok:
			return fmt.Errorf("took nothing; want %+v", *want)
		case want != nil && !cmp.Equal(got, *want):
			return fmt.Errorf("took (-want +got):\n%s", cmp.Diff(*want, got))
		}
		return nil
	}}
}

// addSession is a step calling AddSession, which must succeed (fails:
// must not).
func addSession(on int, s signin.Session, fails bool) step {
	return step{on, fmt.Sprintf("AddSession(%.12s…)", s.Hash), func(ctx context.Context, h Store) error {
		return wantFailure(h.AddSession(ctx, s), fails)
	}}
}

// liveSession is a step calling LiveSession at epoch+at, which must find
// want (nil: nothing).
func liveSession(on int, hash string, at time.Duration, want *signin.Session) step {
	return step{on, fmt.Sprintf("LiveSession(%.12s…, +%v)", hash, at), func(ctx context.Context, h Store) error {
		got, ok, err := h.LiveSession(ctx, hash, epoch.Add(at))
		switch {
		case err != nil:
			return err
		case want == nil && ok:
			return fmt.Errorf("found %+v; want nothing", got)
		case want != nil && !ok:
			return fmt.Errorf("found nothing; want %+v", *want)
		case want != nil && !cmp.Equal(got, *want):
			return fmt.Errorf("found (-want +got):\n%s", cmp.Diff(*want, got))
		}
		return nil
	}}
}

// sessionsAre is a step calling Sessions at epoch+at, which must list
// want, in order.
func sessionsAre(on int, at time.Duration, want ...signin.Session) step {
	return step{on, fmt.Sprintf("Sessions(+%v)", at), func(ctx context.Context, h Store) error {
		got, err := h.Sessions(ctx, epoch.Add(at))
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			return fmt.Errorf("(-want +got):\n%s", diff)
		}
		return nil
	}}
}

// revoke is a step calling RevokeSessions, which must end n sessions.
func revoke(on int, prefix string, n int) step {
	return step{on, fmt.Sprintf("RevokeSessions(%q)", prefix), func(ctx context.Context, h Store) error {
		got, err := h.RevokeSessions(ctx, prefix)
		if err == nil && got != n {
			err = fmt.Errorf("ended %d sessions, want %d", got, n)
		}
		return err
	}}
}

// wantFailure is nil when err is as expected: an error when fails, else
// none.
func wantFailure(err error, fails bool) error {
	switch {
	case fails && err == nil:
		return fmt.Errorf("succeeded; want an error")
	case fails:
		return nil
	}
	return err
}

func testLogins(t *testing.T, s suite) {
	const ms = time.Millisecond
	l1 := login("l1", "slack:U1", false, 0, 10*time.Minute)
	op := login("op", "operator", true, time.Minute, 10*time.Minute)
	runScripts(t, s, []script{
		{"taken once", []step{
			addLogin(0, l1, false),
			useLogin(0, l1.Hash, time.Minute, &l1),
			useLogin(1, l1.Hash, 2*time.Minute, nil),
			useLogin(0, l1.Hash, time.Minute, nil),
		}},
		{"taken through another handle", []step{
			addLogin(0, l1, false),
			useLogin(1, l1.Hash, time.Minute, &l1),
			useLogin(0, l1.Hash, time.Minute, nil),
		}},
		{"who and admin kept", []step{
			addLogin(0, l1, false),
			addLogin(1, op, false),
			useLogin(0, op.Hash, 2*time.Minute, &op),
			useLogin(1, l1.Hash, 2*time.Minute, &l1),
		}},
		{"a millisecond before it expires", []step{
			addLogin(0, l1, false),
			useLogin(1, l1.Hash, 10*time.Minute-ms, &l1),
		}},
		{"expired at its expiry, and gone", []step{
			addLogin(0, l1, false),
			useLogin(1, l1.Hash, 10*time.Minute, nil),
			// The expired login was removed: even before its expiry,
			// nothing is left to take.
			useLogin(0, l1.Hash, time.Minute, nil),
		}},
		{"expired long ago", []step{
			addLogin(0, l1, false),
			useLogin(0, l1.Hash, 48*time.Hour, nil),
		}},
		{"unknown", []step{
			useLogin(0, hashFor("nobody"), 0, nil),
			addLogin(0, l1, false),
			useLogin(1, hashFor("nobody"), time.Minute, nil),
			useLogin(1, "", time.Minute, nil),
			useLogin(0, l1.Hash, time.Minute, &l1),
		}},
		{"the hash is exact", []step{
			addLogin(0, l1, false),
			useLogin(0, l1.Hash[:63], time.Minute, nil),
			useLogin(0, l1.Hash+"0", time.Minute, nil),
			useLogin(0, strings.ToUpper(l1.Hash), time.Minute, nil),
			useLogin(0, l1.Hash[:12]+"%", time.Minute, nil),
			useLogin(1, l1.Hash, time.Minute, &l1),
		}},
		{"in another zone", []step{
			addLogin(0, signin.Login{Hash: l1.Hash, User: l1.User,
				Created: l1.Created.In(time.FixedZone("UTC+9", 9*3600)), Expires: l1.Expires.In(time.FixedZone("UTC-5", -5*3600))}, false),
			step{1, "UseLogin in UTC+9", func(ctx context.Context, h Store) error {
				got, ok, err := h.UseLogin(ctx, l1.Hash, epoch.Add(10*time.Minute-ms).In(time.FixedZone("UTC+9", 9*3600)))
				if err != nil || !ok || got.Created.Location() != time.UTC || !got.Created.Equal(l1.Created) || !got.Expires.Equal(l1.Expires) {
					return fmt.Errorf("= %+v, %v, %v; want %+v in UTC", got, ok, err, l1)
				}
				return nil
			}},
		}},
		{"a hash twice is refused", []step{
			addLogin(0, l1, false),
			addLogin(1, login("l1", "slack:U666", true, time.Minute, time.Hour), true),
			useLogin(0, l1.Hash, time.Minute, &l1),
		}},
		{"no hash is refused", []step{
			addLogin(0, signin.Login{User: "slack:U1", Created: epoch, Expires: epoch.Add(time.Hour)}, true),
			useLogin(0, "", time.Minute, nil),
		}},
	})
}

// testLoginRace: 16 takers on two handles (two processes) race for one
// login at the same instant; exactly one gets it. Past its expiry, none
// does.
func testLoginRace(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	const takers = 16
	for round := range 4 {
		l := login(fmt.Sprintf("race%d", round), "slack:U1", round%2 == 0, 0, time.Minute)
		if err := db.AddLogin(t.Context(), l); err != nil {
			t.Fatal(err)
		}
		at := epoch.Add(30 * time.Second)
		expired := round == 3
		if expired {
			at = l.Expires
		}
		got := make([]signin.Login, takers)
		ok := make([]bool, takers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range takers {
			wg.Go(func() {
				<-start
				var err error
				got[i], ok[i], err = dbs[i%len(dbs)].UseLogin(t.Context(), l.Hash, at)
				if err != nil {
					t.Errorf("UseLogin by taker %d: %v", i, err)
				}
			})
		}
		close(start)
		wg.Wait()
		var winners []int
		for i := range takers {
			if ok[i] {
				winners = append(winners, i)
				if !cmp.Equal(got[i], l) {
					t.Errorf("round %d: taker %d took (-want +got):\n%s", round, i, cmp.Diff(l, got[i]))
				}
			}
		}
		switch {
		case expired && len(winners) != 0:
			t.Errorf("round %d: an expired login was taken by %v; want nobody", round, winners)
		case !expired && len(winners) != 1:
			t.Errorf("round %d: the login was taken by %v; want exactly one taker", round, winners)
		}
	}
}

func testLiveSession(t *testing.T, s suite) {
	const ms = time.Millisecond
	s1 := consoleSession("s1", "slack:U1", 0, time.Hour)
	op := consoleSession("op", "operator", time.Minute, time.Hour)
	runScripts(t, s, []script{
		{"live on both handles", []step{
			addSession(0, s1, false),
			addSession(0, op, false),
			liveSession(0, s1.Hash, time.Minute, &s1),
			liveSession(1, s1.Hash, time.Minute, &s1),
			liveSession(1, op.Hash, time.Minute, &op),
			// Looking does not use it up.
			liveSession(0, s1.Hash, 2*time.Minute, &s1),
		}},
		{"up to its expiry", []step{
			addSession(0, s1, false),
			liveSession(1, s1.Hash, time.Hour-ms, &s1),
			liveSession(1, s1.Hash, time.Hour, nil),
			liveSession(0, s1.Hash, 48*time.Hour, nil),
		}},
		{"unknown, or not exactly its hash", []step{
			addSession(0, s1, false),
			liveSession(0, hashFor("nobody"), time.Minute, nil),
			liveSession(0, "", time.Minute, nil),
			liveSession(0, s1.Hash[:12], time.Minute, nil),
			liveSession(0, strings.ToUpper(s1.Hash), time.Minute, nil),
			liveSession(0, s1.Hash[:12]+"%", time.Minute, nil),
		}},
		{"revoked", []step{
			addSession(0, s1, false),
			addSession(0, op, false),
			revoke(1, s1.Hash, 1),
			liveSession(0, s1.Hash, time.Minute, nil),
			liveSession(1, s1.Hash, time.Minute, nil),
			liveSession(0, op.Hash, time.Minute, &op),
			revoke(0, s1.Hash, 0),
		}},
		{"a hash twice is refused", []step{
			addSession(0, s1, false),
			addSession(1, consoleSession("s1", "slack:U666", time.Minute, 2*time.Hour), true),
			liveSession(0, s1.Hash, time.Minute, &s1),
		}},
		{"no hash is refused", []step{
			addSession(0, signin.Session{User: "slack:U1", Created: epoch, Expires: epoch.Add(time.Hour)}, true),
			sessionsAre(0, time.Minute),
		}},
	})
}

func testSessionList(t *testing.T, s suite) {
	s1 := consoleSession("s1", "slack:U1", 0, time.Hour)
	s2 := consoleSession("s2", "slack:U2", time.Minute, time.Hour)
	s3 := consoleSession("s3", "operator", 2*time.Minute, 3*time.Minute) // expires at +5m
	// s4 is as new as s2: the hash breaks the tie, by its bytes.
	s4 := consoleSession("s4", "slack:U1", time.Minute, time.Hour)
	first, second := s2, s4
	if first.Hash > second.Hash {
		first, second = second, first
	}
	gone := consoleSession("gone", "slack:U1", 3*time.Minute, time.Hour)
	runScripts(t, s, []script{
		{"none", []step{
			sessionsAre(0, 0),
		}},
		{"newest first, without the expired and the revoked", []step{
			addSession(0, s1, false),
			addSession(1, s2, false),
			addSession(0, s3, false),
			addSession(1, s4, false),
			addSession(0, gone, false),
			revoke(1, gone.Hash, 1),
			sessionsAre(0, 4*time.Minute, s3, first, second, s1),
			sessionsAre(1, 5*time.Minute, first, second, s1),
			sessionsAre(0, 60*time.Minute+30*time.Second, first, second),
			sessionsAre(1, 2*time.Hour),
		}},
	})
}

func testRevoke(t *testing.T, s suite) {
	// a1 and a2 share their first 12 digits, b shares 11 of them.
	a1 := consoleSession("0123456789ab1", "slack:U1", 0, time.Hour)
	a2 := consoleSession("0123456789ab2", "slack:U2", time.Minute, time.Hour)
	b := consoleSession("0123456789a0", "slack:U3", 2*time.Minute, time.Hour)
	c := consoleSession("fedcba987654", "operator", 3*time.Minute, time.Hour)
	// expired is past its expiry at the store's clock, which starts at
	// epoch: revoking it ends nothing.
	expired := consoleSession("0123456789abe", "slack:U1", -time.Hour, 30*time.Minute)
	add := []step{addSession(0, a1, false), addSession(0, a2, false), addSession(0, b, false),
		addSession(0, c, false), addSession(0, expired, false)}
	runScripts(t, s, []script{
		{"by prefix", append(add[:5:5],
			revoke(1, "0123456789ab", 2),
			sessionsAre(0, 4*time.Minute, c, b),
			revoke(0, "0123456789ab", 0),
			revoke(1, "0123456789a0", 1),
			sessionsAre(1, 4*time.Minute, c),
		)},
		{"by the whole hash", append(add[:5:5],
			revoke(1, a2.Hash, 1),
			sessionsAre(0, 4*time.Minute, c, b, a1),
			revoke(0, a2.Hash, 0),
		)},
		{"in capitals", append(add[:5:5],
			revoke(0, strings.ToUpper(c.Hash[:20]), 1),
			sessionsAre(1, 4*time.Minute, b, a2, a1),
		)},
		{"a prefix no live session has", append(add[:5:5],
			revoke(0, "0123456789abe", 0), // expired's
			revoke(0, "ffffffffffff", 0),
			revoke(1, "0123456789ab3", 0),
			sessionsAre(1, 4*time.Minute, c, b, a2, a1),
		)},
		{"every session", append(add[:5:5],
			revoke(1, c.Hash, 1),
			revoke(0, "", 3),
			sessionsAre(0, 4*time.Minute),
			liveSession(1, a1.Hash, 4*time.Minute, nil),
			revoke(1, "", 0),
			// A new one after the revocation lives.
			addSession(1, consoleSession("new", "slack:U1", 5*time.Minute, time.Hour), false),
			revoke(0, "", 1),
		)},
		{"none to revoke", []step{
			revoke(0, "", 0),
			revoke(1, "0123456789ab", 0),
		}},
	})
}

// testRevokeRefused: a prefix that is short, or not hexadecimal — a
// pattern's wildcards above all — is refused and ends nothing.
func testRevokeRefused(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	var all []signin.Session
	for i := range 4 {
		se := consoleSession(fmt.Sprintf("0123456789ab%d", i), "slack:U1", time.Duration(4-i)*time.Minute, time.Hour)
		if err := db.AddSession(ctx, se); err != nil {
			t.Fatal(err)
		}
		all = append(all, se)
	}
	for _, prefix := range []string{
		"0", "0123456789a", "01234567890", // too short
		"%", "____________", "%%%%%%%%%%%%", "0123456789a%", "0123456789ab%", "0123456789a_",
		"************", "????????????", "0123456789a*", "[0-9a-f]*****", "0123456789a?",
		"0123456789ag", " 0123456789ab", "0123456789ab ", "0123456789ab\x00", "０１２３４５６７８９ab",
		"0123456789ab' OR '1'='1", "0123456789ab'; DELETE FROM console_sessions; --",
	} {
		t.Run(fmt.Sprintf("%q", prefix), func(t *testing.T) {
			if n, err := db.RevokeSessions(ctx, prefix); err == nil || n != 0 {
				t.Errorf("RevokeSessions(%q) = %d, %v; want 0 and an error", prefix, n, err)
			}
		})
	}
	got, err := db.Sessions(ctx, epoch.Add(5*time.Minute))
	if diff := cmp.Diff(all, got); err != nil || diff != "" {
		t.Errorf("after the refusals, Sessions: %v (-want +got):\n%s", err, diff)
	}
}

// testConsolePrune: adding a login or a session removes those that
// expired more than a day before it was created, and keeps the others.
// (A removed row is seen to be gone by asking as of a time it was live.)
func testConsolePrune(t *testing.T, s suite) {
	const day = 24 * time.Hour
	oldL := login("old", "slack:U1", false, -3*day, day)       // expires at -2d
	recentL := login("recent", "slack:U1", false, -day, day/2) // expires at -12h
	newL := login("new", "slack:U1", false, 0, time.Hour)
	oldS := consoleSession("old", "slack:U1", -3*day, day)
	recentS := consoleSession("recent", "slack:U1", -day, day/2)
	revokedS := consoleSession("revoked", "slack:U1", 0, time.Hour)
	laterS := consoleSession("later", "slack:U1", 3*day, time.Hour)
	newS := consoleSession("new", "slack:U1", 0, time.Hour)
	runScripts(t, s, []script{
		{"logins kept until a newer one", []step{
			addLogin(0, oldL, false),
			addLogin(0, recentL, false),
			useLogin(1, oldL.Hash, -2*day-time.Hour, &oldL),
		}},
		{"logins pruned", []step{
			addLogin(0, oldL, false),
			addLogin(0, recentL, false),
			addLogin(1, newL, false),
			useLogin(0, oldL.Hash, -2*day-time.Hour, nil),
			useLogin(0, recentL.Hash, -13*time.Hour, &recentL),
			useLogin(1, newL.Hash, time.Minute, &newL),
		}},
		{"sessions kept until a newer one", []step{
			addSession(0, oldS, false),
			addSession(0, recentS, false),
			liveSession(1, oldS.Hash, -2*day-time.Hour, &oldS),
		}},
		{"sessions pruned", []step{
			addSession(0, oldS, false),
			addSession(0, recentS, false),
			addSession(1, newS, false),
			liveSession(0, oldS.Hash, -2*day-time.Hour, nil),
			liveSession(0, recentS.Hash, -13*time.Hour, &recentS),
			sessionsAre(1, -13*time.Hour, newS, recentS),
			// The pruned hashes are free again.
			addSession(1, oldS, false),
			liveSession(0, oldS.Hash, -2*day-time.Hour, &oldS),
		}},
		{"revoked sessions pruned too", []step{
			addSession(0, revokedS, false),
			revoke(1, revokedS.Hash, 1),
			addSession(0, revokedS, true), // its row is still there
			addSession(1, laterS, false),  // expired more than a day before
			addSession(0, revokedS, false),
			liveSession(1, revokedS.Hash, time.Minute, &revokedS),
		}},
	})
}

// testConsoleReopen: logins, sessions and revocations outlive a restart.
func testConsoleReopen(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	l := login("l1", "operator", true, 0, time.Hour)
	s1 := consoleSession("s1", "slack:U1", 0, time.Hour)
	s2 := consoleSession("s2", "slack:U2", time.Minute, time.Hour)
	for _, err := range []error{db.AddLogin(ctx, l), db.AddSession(ctx, s1), db.AddSession(ctx, s2)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.RevokeSessions(ctx, s2.Hash[:12]); n != 1 || err != nil {
		t.Fatalf("RevokeSessions = %d, %v; want 1", n, err)
	}
	closeNow(t, db)
	db = reopen()
	if got, ok, err := db.UseLogin(ctx, l.Hash, epoch.Add(time.Minute)); err != nil || !ok || !cmp.Equal(got, l) {
		t.Errorf("after a restart, UseLogin = %+v, %v, %v; want %+v", got, ok, err, l)
	}
	if got, err := db.Sessions(ctx, epoch.Add(2*time.Minute)); err != nil || !cmp.Equal(got, []signin.Session{s1}) {
		t.Errorf("after a restart, Sessions = %+v, %v; want only %+v", got, err, s1)
	}
}
