package discordtest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

func approvalMessage(t *testing.T, s *discordgo.Session, channel string) *discordgo.Message {
	t.Helper()
	m, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{
		Content: "Run rm -rf build?",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Approve", Style: discordgo.SuccessButton, CustomID: "ap:42"},
			discordgo.Button{Label: "Deny", Style: discordgo.DangerButton, CustomID: "dn:42"},
		}}},
		AllowedMentions: &discordgo.MessageAllowedMentions{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClickRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s, rec := connect(t, srv)
	m := approvalMessage(t, s, general)
	if got := srv.BotMessages(general)[0].Buttons; !cmp.Equal(got, [][]discordtest.Button{{
		{Label: "Approve", Style: 3, CustomID: "ap:42"}, {Label: "Deny", Style: 4, CustomID: "dn:42"}}}) {
		t.Fatalf("Buttons = %+v", got)
	}

	id, err := srv.Click(general, m.ID, 1, alice)
	if err != nil {
		t.Fatal(err)
	}
	i := rec.interaction(t, ctx, id)
	if i.Type != discordgo.InteractionMessageComponent || i.MessageComponentData().CustomID != "dn:42" ||
		i.Member == nil || i.Member.User.ID != alice || i.Message == nil || i.Message.ID != m.ID || i.GuildID != guild {
		t.Fatalf("interaction = %+v", i.Interaction)
	}
	err = s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{Content: "Denied by alice", Components: []discordgo.MessageComponent{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.BotMessages(general)[0]
	if got.Content != "Denied by alice" || got.Buttons != nil || got.Edits != 1 {
		t.Errorf("message after update = %+v", got)
	}
	err = s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate})
	restErr(t, err, 400, 40060)
	replies := srv.InteractionReplies(id)
	if len(replies) != 2 || replies[0].Status != 204 || replies[0].Type != 7 || replies[1].Status != 400 {
		t.Errorf("InteractionReplies = %+v", replies)
	}

	if _, err := srv.Click(general, m.ID, 0, bob); !errors.Is(err, discordtest.ErrNoSuchButton) {
		t.Errorf("click on a message without buttons: %v, want ErrNoSuchButton", err)
	}
}

func TestClickInDMCarriesUser(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s, rec := connect(t, srv)
	m := approvalMessage(t, s, srv.DMChannel(alice))
	id, err := srv.Click(m.ChannelID, m.ID, 0, alice)
	if err != nil {
		t.Fatal(err)
	}
	i := rec.interaction(t, ctx, id)
	if i.Member != nil || i.User == nil || i.User.ID != alice || i.GuildID != "" {
		t.Fatalf("DM interaction member %+v user %+v guild %q", i.Member, i.User, i.GuildID)
	}
}

func TestLateCallbackIsUnknown(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	// Any callback is later than a nanosecond: no sleeping needed.
	srv := newServer(t, discordtest.WithInteractionDeadline(time.Nanosecond))
	s, rec := connect(t, srv)
	m := approvalMessage(t, s, general)
	id, err := srv.Click(general, m.ID, 0, alice)
	if err != nil {
		t.Fatal(err)
	}
	i := rec.interaction(t, ctx, id)
	err = s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate})
	restErr(t, err, 404, 10062)
	_, err = s.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: ptr("late")})
	restErr(t, err, 404, 10015)
}

func ptr[T any](v T) *T { return &v }

func TestCommandsAndEphemeralFollowups(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	s, rec := connect(t, srv)

	memory := &discordgo.ApplicationCommand{Name: "memory", Description: "Show or edit what Parley remembers about you",
		Options: []*discordgo.ApplicationCommandOption{{
			Type: discordgo.ApplicationCommandOptionSubCommand, Name: "forget", Description: "Forget one entry",
			Options: []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionInteger, Name: "n", Description: "Entry number", Required: true}},
		}}}
	created, err := s.ApplicationCommandBulkOverwrite(srv.BotID(), "", []*discordgo.ApplicationCommand{memory})
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 1 || created[0].ID == "" || created[0].Name != "memory" {
		t.Fatalf("created = %+v", created)
	}
	if _, err := s.ApplicationCommandBulkOverwrite(srv.BotID(), guild, []*discordgo.ApplicationCommand{{Name: "new", Description: "Start over"}}); err != nil {
		t.Fatal(err)
	}
	if g, global := srv.Commands(guild), srv.Commands(""); len(g) != 1 || g[0].Name != "new" || g[0].GuildID != guild ||
		len(global) != 1 || global[0].Description != memory.Description || len(global[0].Options) == 0 {
		t.Fatalf("Commands: guild %+v global %+v", g, global)
	}
	for _, bad := range []*discordgo.ApplicationCommand{{Name: "Memory", Description: "x"}, {Name: "memory", Description: ""}} {
		_, err := s.ApplicationCommandBulkOverwrite(srv.BotID(), "", []*discordgo.ApplicationCommand{bad})
		restErr(t, err, 400, 50035)
	}
	if _, err := srv.Command(general, alice, "nope"); !errors.Is(err, discordtest.ErrUnknownCommand) {
		t.Fatalf("unregistered command: %v", err)
	}

	id, err := srv.Command(general, alice, "memory", discordtest.CommandOption{Name: "forget", Type: 1,
		Options: []discordtest.CommandOption{{Name: "n", Type: 4, Value: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	i := rec.interaction(t, ctx, id)
	data := i.ApplicationCommandData()
	if data.Name != "memory" || len(data.Options) != 1 || data.Options[0].Name != "forget" || data.Options[0].Options[0].IntValue() != 3 {
		t.Fatalf("command data = %+v", data)
	}
	if _, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{Content: "too early"}); err == nil {
		t.Fatal("follow-up before any callback succeeded")
	} else {
		restErr(t, err, 404, 10015)
	}
	err = s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: ptr("Forgot entry 3.")}); err != nil {
		t.Fatal(err)
	}
	f, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{Content: "Anything else?", Flags: discordgo.MessageFlagsEphemeral})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.FollowupMessageEdit(i.Interaction, f.ID, &discordgo.WebhookEdit{Content: ptr("Done.")}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Forgot entry 3.", "Anything else?", "Done."}, srv.Ephemeral(alice)); diff != "" {
		t.Errorf("Ephemeral(alice) (-want +got):\n%s", diff)
	}
	if got := srv.BotMessages(general); len(got) != 0 {
		t.Errorf("ephemeral replies leaked into the channel: %+v", got)
	}
	var kinds []string
	for _, r := range srv.InteractionReplies(id) {
		kinds = append(kinds, r.Kind)
	}
	if diff := cmp.Diff([]string{"followup", "callback", "original-edit", "followup", "followup-edit"}, kinds); diff != "" {
		t.Errorf("reply kinds (-want +got):\n%s", diff)
	}
}
