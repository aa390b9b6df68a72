package remind

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
)

type fakeAdder struct {
	items []Item
	err   error
}

func (f *fakeAdder) AddItem(_ context.Context, it Item, max int) (int64, error) {
	if f.err != nil {
		return 0, f.err
	}
	f.items = append(f.items, it)
	return int64(len(f.items)), nil
}

type fixedZones struct{ loc *time.Location }

func (z fixedZones) Zone(context.Context, string) (*time.Location, error) { return z.loc, nil }

// members is an agent.Reach that lets these people be called.
type members map[string]bool

func (m members) MayCall(_ context.Context, _ agent.Origin, key string) error {
	if !m[key] {
		return errors.New(key + " is not in this conversation")
	}
	return nil
}

func TestTools(t *testing.T) {
	loc := berlin(t)
	now := utc("2026-10-20 10:00:00") // Tue 12:00 CEST
	here := members{"slack:U2": true, "slack:U3": true, "telegram:@carol": true}
	channel := agent.Caller{UserKey: "slack:U1", UserName: "Ana", Reach: here,
		Origin: agent.Origin{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1", Home: "space:slack:T1"}}
	unchecked := channel
	unchecked.Reach = nil
	dm := agent.Caller{UserKey: "slack:U1", UserName: "Ana",
		Origin: agent.Origin{Platform: "slack", Space: "T1", Chat: "D1", Thread: "", Direct: true, Home: "person:slack:U1"}}
	tg := agent.Caller{UserKey: "telegram:101", UserName: "Ana", Reach: here,
		Origin: agent.Origin{Platform: "telegram", Chat: "-1001", Home: "space:telegram:-1001"}}
	tests := []struct {
		name   string
		tool   string
		caller agent.Caller
		args   string
		err    string // a phrase of the error; "" when it works
		want   Item   // Kind, Targets, Text, Spec, Next, Place checked
		says   string // a phrase of the confirmation
	}{
		{name: "tomorrow at 9, for me", tool: "remind", caller: channel, args: `{"text":"send the report","at":"tomorrow 09:00"}`,
			want: Item{Kind: KindReminder, Targets: []string{"slack:U1"}, Text: "send the report", Next: utc("2026-10-21 07:00:00"),
				Place: Place{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1"}},
			says: "I'll remind you Wed 21 Oct 2026 09:00 CEST"},
		{name: "remind others here", tool: "remind", caller: channel, args: `{"text":"standup","in":"2h","who":["<@U2>","me","<@U3|carol>"]}`,
			want: Item{Kind: KindReminder, Targets: []string{"slack:U2", "slack:U1", "slack:U3"}, Text: "standup", Next: now.Add(2 * time.Hour),
				Place: Place{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1"}},
			says: "slack:U2, slack:U1, slack:U3"},
		{name: "every Monday, across the change", tool: "remind", caller: channel, args: `{"text":"retro","cron":"0 10 * * MON"}`,
			want: Item{Kind: KindReminder, Targets: []string{"slack:U1"}, Text: "retro", Spec: "0 10 * * MON", Next: utc("2026-10-26 09:00:00"),
				Place: Place{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1"}},
			says: "first Mon 26 Oct 2026 10:00 CET"},
		{name: "this channel, pinging no one", tool: "remind", caller: channel, args: `{"text":"retro","cron":"0 10 * * MON","who":["channel"]}`,
			want: Item{Kind: KindReminder, Text: "retro", Spec: "0 10 * * MON", Next: utc("2026-10-26 09:00:00"),
				Place: Place{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1"}},
			says: "remind this conversation (pinging no one)"},
		{name: "a telegram @username", tool: "remind", caller: tg, args: `{"text":"lunch","in":"30m","who":["@carol"]}`,
			want: Item{Kind: KindReminder, Targets: []string{"telegram:@carol"}, Text: "lunch", Next: now.Add(30 * time.Minute),
				Place: Place{Platform: "telegram", Chat: "-1001"}}},
		{name: "a schedule in the channel", tool: "schedule", caller: channel, args: `{"instruction":"summarise #ops overnight","cron":"0 9 * * 1-5","where":"channel"}`,
			want: Item{Kind: KindSchedule, Text: "summarise #ops overnight", Spec: "0 9 * * 1-5", Next: utc("2026-10-21 07:00:00"),
				Place: Place{Platform: "slack", Space: "T1", Chat: "C1"}},
			says: "Scheduled"},
		{name: "someone not in the channel", tool: "remind", caller: channel, args: `{"text":"x","in":"1h","who":["<@U2>","<@U9>"]}`,
			err: "I cannot remind slack:U9 here: slack:U9 is not in this conversation"},
		{name: "others where no one can check", tool: "remind", caller: unchecked, args: `{"text":"x","in":"1h","who":["<@U2>"]}`, err: "only you"},
		{name: "only me where no one can check", tool: "remind", caller: unchecked, args: `{"text":"x","in":"1h"}`,
			want: Item{Kind: KindReminder, Targets: []string{"slack:U1"}, Text: "x", Next: now.Add(time.Hour),
				Place: Place{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1"}}},
		{name: "others in a DM", tool: "remind", caller: dm, args: `{"text":"x","in":"1h","who":["<@U2>"]}`, err: "only you"},
		{name: "a schedule to a channel from a DM", tool: "schedule", caller: dm, args: `{"instruction":"x","in":"1h","where":"channel"}`, err: "private chat"},
		{name: "a name that is no mention", tool: "remind", caller: channel, args: `{"text":"x","in":"1h","who":["carol"]}`, err: "mention the person"},
		{name: "past", tool: "remind", caller: channel, args: `{"text":"x","at":"2026-10-19 09:00"}`, err: "in the past"},
		{name: "too often", tool: "remind", caller: channel, args: `{"text":"x","cron":"* * * * *"}`, err: "too often"},
		{name: "two times", tool: "remind", caller: channel, args: `{"text":"x","at":"17:00","in":"1h"}`, err: "exactly one"},
		{name: "no time", tool: "schedule", caller: channel, args: `{"instruction":"x"}`, err: "exactly one"},
		{name: "empty text", tool: "remind", caller: channel, args: `{"text":"  ","in":"1h"}`, err: "empty"},
		{name: "too long", tool: "remind", caller: channel, args: `{"text":"` + strings.Repeat("x", MaxText+1) + `","in":"1h"}`, err: "too long"},
		{name: "nowhere to deliver", tool: "remind", caller: agent.Caller{UserKey: "x:1"}, args: `{"text":"x","in":"1h"}`, err: "conversation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			adder := &fakeAdder{}
			woke := 0
			tools, err := Tools(ToolConfig{Items: adder, Zones: fixedZones{loc}, Wake: func() { woke++ }, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(tools, func(x agent.Tool) bool { return x.Spec().Name == tt.tool })
			out, err := tools[i].Execute(t.Context(), tt.caller, json.RawMessage(tt.args))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || len(adder.items) != 0 || woke != 0 {
					t.Fatalf("err %v (want %q), %d items kept, %d wakes", err, tt.err, len(adder.items), woke)
				}
				return
			}
			if err != nil || len(adder.items) != 1 || woke != 1 {
				t.Fatalf("err %v, %d items, %d wakes", err, len(adder.items), woke)
			}
			got := adder.items[0]
			w := tt.want
			if got.Kind != w.Kind || !slices.Equal(got.Targets, w.Targets) || got.Text != w.Text || got.Spec != w.Spec ||
				!got.Next.Equal(w.Next) || got.Place != w.Place {
				t.Errorf("item %+v\nwant %+v", got, w)
			}
			if got.Scope != tt.caller.Origin.Home || got.Owner != tt.caller.UserKey || got.OwnerName != "Ana" || got.Zone != "Europe/Berlin" {
				t.Errorf("scope %q owner %q (%q) zone %q", got.Scope, got.Owner, got.OwnerName, got.Zone)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("a kept item does not validate: %v", err)
			}
			if !strings.Contains(out, tt.says) {
				t.Errorf("confirmation %q lacks %q", out, tt.says)
			}
		})
	}
	// The cap is the store's: its refusal reaches the model as it is.
	tools, _ := Tools(ToolConfig{Items: &fakeAdder{err: ErrCap}, Zones: fixedZones{loc}, Now: func() time.Time { return now }})
	if _, err := tools[0].Execute(t.Context(), channel, json.RawMessage(`{"text":"x","in":"1h"}`)); !errors.Is(err, ErrCap) {
		t.Errorf("at the cap: %v", err)
	}
}
