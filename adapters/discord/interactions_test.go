package discord

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/chat"
)

// recordingHandler records what the adapter hands over, and how many REST
// calls had been made by then (the acknowledgement must come first).
type recordingHandler struct {
	f       *fakeREST
	onEvent func(ctx context.Context, respond func(ctx context.Context) error) error

	mu          sync.Mutex
	actions     []chat.Action
	commands    []chat.Command
	callsBefore []int
}

func (h *recordingHandler) HandleMessage(context.Context, chat.Message) error { return nil }

func (h *recordingHandler) HandleAction(ctx context.Context, a chat.Action) error {
	h.mu.Lock()
	h.actions = append(h.actions, a)
	h.callsBefore = append(h.callsBefore, len(h.f.recorded()))
	h.mu.Unlock()
	if h.onEvent != nil {
		return h.onEvent(ctx, func(ctx context.Context) error { return a.Respond(ctx, "not yours") })
	}
	return nil
}

func (h *recordingHandler) HandleCommand(ctx context.Context, c chat.Command) error {
	h.mu.Lock()
	h.commands = append(h.commands, c)
	h.callsBefore = append(h.callsBefore, len(h.f.recorded()))
	h.mu.Unlock()
	if h.onEvent != nil {
		return h.onEvent(ctx, func(ctx context.Context) error {
			if err := c.Respond(ctx, chat.Out{Text: "first", Buttons: []chat.Button{{Label: "Clear", Data: "mc:1"}}}); err != nil {
				return err
			}
			return c.Respond(ctx, chat.Out{Text: "second"})
		})
	}
	return nil
}

func interaction(t *testing.T, js string) *discordgo.Interaction {
	t.Helper()
	var in discordgo.Interaction
	if err := json.Unmarshal([]byte(js), &in); err != nil {
		t.Fatalf("interaction JSON: %v", err)
	}
	return &in
}

func TestClick(t *testing.T) {
	f := newFakeREST(t)
	f.answer("POST /interactions/800/tok/callback", 204, "")
	f.answer("POST /webhooks/"+testBot+"/tok", 200, sentMessage)
	a := newTestAdapter(t, f, nil)
	h := &recordingHandler{f: f, onEvent: func(ctx context.Context, respond func(context.Context) error) error {
		return respond(ctx)
	}}
	in := interaction(t, `{"id":"800","application_id":"`+testBot+`","type":3,"token":"tok",
		"guild_id":"`+testGuild+`","channel_id":"`+testThr+`",
		"member":{"user":{"id":"12","username":"bob"}},
		"message":{"id":"700","channel_id":"`+testThr+`","author":{"id":"`+testBot+`"}},
		"data":{"custom_id":"a:approval-1","component_type":2}}`)
	a.onInteraction(testCtx(t), h, in)

	th := chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: testThr}
	want := chat.Action{Key: "discord:i:800", Thread: th, User: chat.User{Platform: "discord", ID: "12", Name: "bob"},
		Data: "a:approval-1", Message: chat.MessageRef{Thread: th, ID: "700"}}
	if len(h.actions) != 1 {
		t.Fatalf("%d actions handed over, want 1", len(h.actions))
	}
	got := h.actions[0]
	if got.Respond == nil {
		t.Fatal("Action.Respond is nil")
	}
	got.Respond = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("action (-want +got):\n%s", diff)
	}
	calls := f.recorded()
	if h.callsBefore[0] != 1 || len(calls) != 2 {
		t.Fatalf("calls %+v (%d before the handler); want the acknowledgement, then the handler, then its answer", calls, h.callsBefore[0])
	}
	if calls[0].Path != "/interactions/800/tok/callback" || !strings.Contains(calls[0].Body, `"type":6`) {
		t.Errorf("first call %+v, want the type 6 deferral", calls[0])
	}
	if calls[1].Path != "/webhooks/"+testBot+"/tok" || !strings.Contains(calls[1].Body, `"flags":68`) ||
		!strings.Contains(calls[1].Body, "not yours") {
		t.Errorf("answer %+v, want an ephemeral follow-up", calls[1])
	}
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		guild   bool
		command string
		args    []string
	}{
		{"memory show", `{"name":"memory","type":1,"options":[{"name":"show","type":1}]}`, true, "memory", nil},
		{"memory forget", `{"name":"memory","type":1,"options":[{"name":"forget","type":1,"options":[{"name":"n","type":4,"value":3}]}]}`, true, "memory", []string{"forget", "3"}},
		{"memory clear", `{"name":"memory","type":1,"options":[{"name":"clear","type":1}]}`, false, "memory", []string{"clear"}},
		{"new", `{"name":"new","type":1}`, true, "new", nil},
		{"status in a DM", `{"name":"status","type":1}`, false, "status", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeREST(t)
			f.answer("POST /interactions/801/tok/callback", 204, "")
			f.answer("PATCH /webhooks/"+testBot+"/tok/messages/@original", 200, sentMessage)
			f.answer("POST /webhooks/"+testBot+"/tok", 200, sentMessage)
			a := newTestAdapter(t, f, nil)
			h := &recordingHandler{f: f, onEvent: func(ctx context.Context, respond func(context.Context) error) error {
				return respond(ctx)
			}}
			where := `"channel_id":"77","user":{"id":"11","username":"alice"}`
			wantThread := chat.Thread{Platform: "discord", Chat: "77"}
			if tt.guild {
				where = `"guild_id":"` + testGuild + `","channel_id":"` + testChan + `","member":{"user":{"id":"11","username":"alice"}}`
				wantThread = chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan}
			}
			a.onInteraction(testCtx(t), h, interaction(t, `{"id":"801","application_id":"`+testBot+`","type":2,"token":"tok",`+
				where+`,"data":`+tt.data+`}`))

			if len(h.commands) != 1 {
				t.Fatalf("%d commands handed over, want 1", len(h.commands))
			}
			got := h.commands[0]
			got.Respond = nil
			want := chat.Command{Key: "discord:i:801", Thread: wantThread, User: chat.User{Platform: "discord", ID: "11", Name: "alice"},
				Name: tt.command, Args: tt.args, Direct: !tt.guild}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("command (-want +got):\n%s", diff)
			}
			calls := f.recorded()
			if h.callsBefore[0] != 1 || len(calls) != 3 {
				t.Fatalf("calls %+v (%d before the handler); want deferral, handler, edit of @original, follow-up", calls, h.callsBefore[0])
			}
			if !strings.Contains(calls[0].Body, `"type":5`) || !strings.Contains(calls[0].Body, `"flags":68`) {
				t.Errorf("acknowledgement %s, want a deferred ephemeral answer (type 5, flags 64 and 4)", calls[0].Body)
			}
			if calls[1].Method != "PATCH" || !strings.Contains(calls[1].Body, "first") || !strings.Contains(calls[1].Body, `"custom_id":"mc:1"`) {
				t.Errorf("first answer %+v, want the edit of @original with the button", calls[1])
			}
			if calls[2].Method != "POST" || !strings.Contains(calls[2].Body, "second") || !strings.Contains(calls[2].Body, `"flags":68`) {
				t.Errorf("second answer %+v, want an ephemeral follow-up", calls[2])
			}
		})
	}
}

// A malformed interaction is still acknowledged, never handed over.
func TestMalformedInteraction(t *testing.T) {
	f := newFakeREST(t)
	f.answer("POST /interactions/802/tok/callback", 204, "")
	a := newTestAdapter(t, f, nil)
	h := &recordingHandler{f: f}
	for _, js := range []string{
		`{"id":"802","type":3,"token":"tok","channel_id":"77","data":{"custom_id":"x"}}`,
		`{"id":"802","type":2,"token":"tok","channel_id":"77","user":{"id":"1"},"data":{}}`,
	} {
		a.onInteraction(testCtx(t), h, interaction(t, js))
	}
	a.onInteraction(testCtx(t), h, &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand})
	a.onInteraction(testCtx(t), h, nil)
	if len(h.actions)+len(h.commands) != 0 {
		t.Errorf("malformed interactions handed over: %+v %+v", h.actions, h.commands)
	}
	if n := len(f.recorded()); n != 2 {
		t.Errorf("%d acknowledgements, want 2 (the one without an id cannot be answered)", n)
	}
}

func TestAppCommands(t *testing.T) {
	cmds := appCommands()
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
		if c.Description == "" || len(c.Description) > 100 {
			t.Errorf("/%s description %q", c.Name, c.Description)
		}
	}
	if diff := cmp.Diff([]string{"memory", "kb", "skills", "reflect", "remind", "schedules", "tz", "new", "stop", "pause", "resume", "worklog", "status", "agent", "model", "usage", "console", "help"}, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(cmds[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"show"`, `"name":"forget"`, `"name":"n"`, `"required":true`, `"min_value":1`, `"name":"clear"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/memory %s lacks %s", b, want)
		}
	}
}
