package rowdata

import "testing"

func TestLikeEscape(t *testing.T) {
	for in, want := range map[string]string{"ann": "ann", "a_b": `a\_b`, "100%": `100\%`, `c:\x`: `c:\\x`, "": ""} {
		if got := LikeEscape(in); got != want {
			t.Errorf("LikeEscape(%q) = %q, want %q", in, got, want)
		}
	}
}
