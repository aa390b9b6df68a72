package rowdata

import (
	"testing"

	"github.com/parleybot/parley/chat"
)

// TestListFormat pins the JSON list columns: both engines query into
// them, and databases already written must read the same.
func TestListFormat(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{nil, `[]`},
		{[]string{}, `[]`},
		{[]string{"a", "b"}, `["a","b"]`},
	} {
		got, err := EncodeList(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("EncodeList(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
		back, err := DecodeList(got)
		if err != nil || len(back) != len(tt.in) || (len(tt.in) == 0 && back != nil) {
			t.Errorf("DecodeList(%s) = %q, %v", got, back, err)
		}
	}

	refs := []chat.MessageRef{{Thread: chat.Thread{Platform: "slack", Chat: "C1", ID: "T1"}, ID: "M1"}}
	got, err := EncodeRefs(refs)
	const want = `[{"platform":"slack","chat":"C1","thread":"T1","id":"M1"}]`
	if err != nil || got != want {
		t.Errorf("EncodeRefs = %s, %v; want %s", got, err, want)
	}
}
