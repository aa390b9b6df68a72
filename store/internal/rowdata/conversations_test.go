package rowdata

import "testing"

func TestIDRange(t *testing.T) {
	for _, tc := range []struct {
		prefix, hi string
		ok         bool
	}{
		{"", "", false},
		{"abc", "abd", true},
		{"ab\xff", "ac", true},
		{"\xff\xff", "", false},
		{"a\x7f", "", false}, // "a\x80" is not UTF-8
		{"é", "ê", true},
	} {
		hi, ok := IDRange(tc.prefix)
		if hi != tc.hi || ok != tc.ok {
			t.Errorf("IDRange(%q) = %q, %v; want %q, %v", tc.prefix, hi, ok, tc.hi, tc.ok)
		}
	}
}
