package shell

import (
	"fmt"
	"strings"
	"testing"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"empty", 10, nil, ""},
		{"fits", 10, []string{"0123456789"}, "0123456789"},
		{"fits in pieces", 10, []string{"01", "234", "56789"}, "0123456789"},
		{"one byte over", 10, []string{"0123456789X"}, "01234\n[… 1 bytes omitted …]\n6789X"},
		{"head and tail", 10, []string{"abcde", strings.Repeat("-", 100), "vwxyz"}, "abcde\n[… 100 bytes omitted …]\nvwxyz"},
		{"many small writes", 10, strings.Split("abcdefghijklmnopqrstuvwxyz", ""), "abcde\n[… 16 bytes omitted …]\nvwxyz"},
		{"odd limit", 11, []string{"abcdefghijklmnopqrstuvwxyz"}, "abcde\n[… 15 bytes omitted …]\nuvwxyz"},
		// "é" is two bytes; cuts must not split it.
		{"utf8 cut in head", 6, []string{"aaééé", strings.Repeat("-", 20), "zzz"}, "aa\n[… 26 bytes omitted …]\nzzz"},
		{"utf8 cut in tail", 6, []string{"abc", strings.Repeat("-", 20), "éé"}, "abc\n[… 22 bytes omitted …]\né"},
		{"invalid utf8", 10, []string{"a\xffb"}, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.limit)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := c.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOutputCapThroughTool(t *testing.T) {
	tl := newTool(t, func(o *Options) { o.MaxOutput = 100 })
	// 5 + 300 + 3 = 308 bytes; 50 of the head and 50 of the tail stay.
	out := mustCall(t, tl, "s1", `printf BEGIN; i=0; while [ $i -lt 300 ]; do printf x; i=$((i+1)); done; printf END`)
	want := "BEGIN" + strings.Repeat("x", 45) + fmt.Sprintf("\n[… %d bytes omitted …]\n", 208) + strings.Repeat("x", 47) + "END"
	if out != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
}

func TestOutputCombinesStreamsInOrder(t *testing.T) {
	tl := newTool(t, nil)
	out := mustCall(t, tl, "s1", "echo one; echo two >&2; echo three")
	if out != "one\ntwo\nthree\n" {
		t.Errorf("got %q", out)
	}
}
