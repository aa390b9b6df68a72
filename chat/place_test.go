package chat_test

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/chat"
)

func TestParsePlaceSet(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		kind chat.PlaceKind
	}{
		{"*", chat.PlaceAll},
		{"console", chat.PlaceDirect},
		{"slack:channel:C0123ABC", chat.PlaceChannel},
		{"slack:workspace:T0123", chat.PlaceSpace},
		{"slack:dm", chat.PlaceDirect},
		{"telegram:chat:-1001234567890", chat.PlaceChannel},
		{"telegram:chat:42", chat.PlaceChannel},
		{"telegram:topic:-1001234567890/7", chat.PlaceTopic},
		{"telegram:dm", chat.PlaceDirect},
		{"discord:channel:112233445566", chat.PlaceChannel},
		{"discord:server:998877", chat.PlaceSpace},
		{"discord:dm", chat.PlaceDirect},
	}
	for _, tt := range good {
		p, err := chat.ParsePlaceSet(tt.in)
		if err != nil || p.Kind != tt.kind || p.String() != tt.in {
			t.Errorf("ParsePlaceSet(%q) = %+v (%q), %v; want kind %d, written back the same", tt.in, p, p.String(), err, tt.kind)
		}
	}
	bad := []struct{ in, want string }{
		{"", "names no platform"},
		{"irc:channel:x", "names no platform"},
		{"slack:chat:C1", "no kind of place on slack"},
		{"telegram:channel:1", "no kind of place on telegram"},
		{"slack:channel:", "not a slack id"},
		{"slack:channel:c-lower", "not a slack id"},
		{"telegram:chat:abc", "not a telegram id"},
		{"discord:server:abc", "not a discord id"},
		{"slack:dm:D1", "takes no id"},
		{"telegram:topic:-100", "<chat>/<topic>"},
		{"telegram:topic:-100/x", "<chat>/<topic>"},
		{"slack:channel:SECRETxoxb", "not a slack id"},
	}
	for _, tt := range bad {
		_, err := chat.ParsePlaceSet(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePlaceSet(%q) = %v; want an error saying %q", tt.in, err, tt.want)
		} else if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("ParsePlaceSet(%q): the error quotes the value: %v", tt.in, err)
		}
	}
}
