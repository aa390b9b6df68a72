package bot

import "testing"

func TestDollars(t *testing.T) {
	for _, tc := range []struct {
		nanos int64
		want  string
	}{
		{0, "$0"},
		{1, "<$0.0001"},
		{49_999, "<$0.0001"},
		{50_000, "$0.0001"}, // rounds half up
		{3_600_000, "$0.0036"},
		{10_200_000, "$0.0102"},
		{999_949_999, "$0.9999"},
		{999_950_000, "$1.00"},
		{1_000_000_000, "$1.00"},
		{1_234_567_890, "$1.23"},
		{1_235_000_000, "$1.24"},
		{12_345_678_000_000, "$12,345.68"},
		{-3_600_000, "-$0.0036"},
	} {
		if got := Dollars(tc.nanos); got != tc.want {
			t.Errorf("Dollars(%d) = %q, want %q", tc.nanos, got, tc.want)
		}
	}
}

func TestOverWarnAt(t *testing.T) {
	for _, tc := range []struct {
		sum, last, limit int64
		want             bool
	}{
		{79, 10, 100, false},
		{80, 10, 100, true},   // crossed with this call
		{80, 0, 100, false},   // nothing spent now: crossed before
		{95, 10, 100, false},  // crossed before this call
		{150, 150, 100, true}, // past 100 % in one call
	} {
		if got := over(tc.sum, tc.last, tc.limit); got != tc.want {
			t.Errorf("over(%d, %d, %d) = %v, want %v", tc.sum, tc.last, tc.limit, got, tc.want)
		}
	}
}
