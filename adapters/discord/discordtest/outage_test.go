package discordtest_test

import (
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

// TestForgottenSessionLosesTheGap: a client held away while Discord
// forgets its session fails to RESUME, identifies afresh and never
// receives what was posted meanwhile, which REST still lists.
func TestForgottenSessionLosesTheGap(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s, rec := connect(t, srv)
	first := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "before"})
	rec.message(t, ctx, first)

	srv.HoldGateway()
	srv.DropConnection()
	if err := srv.WaitFor(ctx, func() bool { return srv.Held() == 1 && !srv.Connected() }); err != nil {
		t.Fatalf("the client never came back to be held: %v", err)
	}
	lost := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "lost"})
	srv.ForgetSessions()
	srv.ReleaseGateway()
	if err := srv.WaitFor(ctx, func() bool { return srv.Identifies() == 2 && srv.Connected() }); err != nil {
		t.Fatalf("no fresh IDENTIFY after the failed RESUME: %v", err)
	}
	// Dispatches of one session arrive in order: once this one is in, the
	// lost one would have been too.
	after := srv.Post(discordtest.Incoming{Channel: general, Author: alice, Content: "after"})
	rec.message(t, ctx, after)
	if n := rec.count(lost); n != 0 {
		t.Errorf("the message posted in the gap was dispatched %d times, want never", n)
	}
	if n := srv.Resumes(); n != 0 {
		t.Errorf("Resumes() = %d, want 0", n)
	}

	got, err := s.ChannelMessages(general, 50, "", first, "", discordgo.WithContext(ctx))
	if err != nil {
		t.Fatalf("GET messages after %s: %v", first, err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if len(ids) != 2 || ids[0] != after || ids[1] != lost {
		t.Errorf("messages after %s: %v, want [%s %s] (newest first)", first, ids, after, lost)
	}
}
