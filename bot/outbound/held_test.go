package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// memKV is a KV in memory.
type memKV struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *memKV) Get(_ context.Context, key string) (string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[key]
	return v, ok, nil
}

func (k *memKV) Set(_ context.Context, key, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = value
	return nil
}

// linked is a platform with a deep link to a private chat (Telegram).
type linked struct{ *bottest.Adapter }

func (linked) PrivateLink(start string) string { return "https://t.me/parley_bot?start=" + start }

// TestPrivateHeldUntilOpened: a private message the platform will not
// deliver (no private chat yet) is held, not failed; the person is told in
// the conversation, once and without the platform's error, how to open a
// private chat; what was held arrives, in order, when they write
// privately, and is gone after. What waited longer than HeldFor is not
// sent.
func TestPrivateHeldUntilOpened(t *testing.T) {
	for _, withLink := range []bool{true, false} {
		t.Run(fmt.Sprintf("deep link %v", withLink), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := bottest.New(bottest.Config{Platform: "telegram", LimitEvery: -1})
				var ad chat.Adapter = fake
				if withLink {
					ad = linked{fake}
				}
				kv := &memKV{m: map[string]string{}}
				o, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{ad}, Keep: kv})
				if err != nil {
					t.Fatal(err)
				}
				group := chat.Thread{Platform: "telegram", Chat: "-100"}
				ann := chat.User{Platform: "telegram", ID: "42", Name: "ann"}
				refused := fmt.Errorf("telegram sendMessage: %w: Forbidden: bot can't initiate conversation with a user", chat.ErrNoPrivateChat)
				fake.FailNext(bottest.OpSendPrivate, 3, refused)

				for _, text := range []string{"old", "first", "second"} {
					if err := o.Private(t.Context(), group, ann, chat.Out{Text: text}); err != nil {
						t.Fatalf("Private(%q) = %v, want it held", text, err)
					}
					if text == "old" {
						time.Sleep(outbound.HeldFor) // "old" expires before ann opens the chat
					}
				}
				sent := fake.Sent()
				if len(sent) != 2 { // told at the first hold, and again once "old" had expired
					t.Fatalf("notices in the conversation: %+v", sent)
				}
				for _, c := range sent {
					if strings.Contains(c.Out.Text, "Forbidden") || strings.Contains(c.Out.Text, "initiate") {
						t.Fatalf("the platform's error reached the conversation: %q", c.Out.Text)
					}
					if len(c.Out.Mentions) != 1 || c.Out.Mentions[0].ID != "42" {
						t.Fatalf("the notice does not call ann: %+v", c.Out)
					}
					if withLink != strings.Contains(c.Out.Text, "https://t.me/parley_bot?start="+outbound.HeldStart) {
						t.Fatalf("notice %q, want the deep link: %v", c.Out.Text, withLink)
					}
				}
				if err := o.Release(t.Context(), ann); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range fake.Private() {
					got = append(got, c.Out.Text)
				}
				if strings.Join(got, ",") != "first,second" {
					t.Fatalf("released %q, want first then second", got)
				}
				if err := o.Release(t.Context(), ann); err != nil || len(fake.Private()) != 2 {
					t.Fatalf("a second release sent again (%v): %+v", err, fake.Private())
				}
			})
		})
	}
}

// TestPrivateNotHeldWithoutKeep: with nowhere to hold it, the refusal is
// the caller's, as before; other failures are never held.
func TestPrivateNotHeldWithoutKeep(t *testing.T) { synctest.Test(t, testPrivateNotHeldWithoutKeep) }

func testPrivateNotHeldWithoutKeep(t *testing.T) {
	fake := bottest.New(bottest.Config{Platform: "telegram", LimitEvery: -1})
	o, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{fake}})
	if err != nil {
		t.Fatal(err)
	}
	fake.FailNext(bottest.OpSendPrivate, 1, chat.ErrNoPrivateChat)
	th, u := chat.Thread{Platform: "telegram", Chat: "-100"}, chat.User{Platform: "telegram", ID: "42"}
	if err := o.Private(t.Context(), th, u, chat.Out{Text: "x"}); !errors.Is(err, chat.ErrNoPrivateChat) {
		t.Fatalf("Private = %v, want the refusal", err)
	}
	kept, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{fake}, Keep: &memKV{m: map[string]string{}}})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("500")
	fake.FailNext(bottest.OpSendPrivate, 1, boom)
	if err := kept.Private(t.Context(), th, u, chat.Out{Text: "x"}); !errors.Is(err, boom) {
		t.Fatalf("Private = %v, want the failure", err)
	}
	if len(fake.Sent()) != 0 {
		t.Fatalf("a failure other than no private chat was announced: %+v", fake.Sent())
	}
}
