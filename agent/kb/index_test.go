package kb

import (
	"strings"
	"testing"
)

func TestIndexText(t *testing.T) {
	tests := []struct {
		name, in, body, uni string
	}{
		{"latin stays", "next_run_at is ParseModelRef", "next_run_at is ParseModelRef", ""},
		{"cjk run becomes bigrams", "申领设备", " 申领 领设 设备 ", "申 领 设 备"},
		{"latin glued into chinese is cut apart", "用Docker部署", " 用 Docker 部署 ", "用 部 署"},
		{"one character run stays", "a中b", "a 中 b", "中"},
		{"japanese", "違う", " 違う ", "違 う"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, uni := IndexText(tt.in)
			if body != tt.body || uni != tt.uni {
				t.Errorf("IndexText(%q) = %q, %q; want %q, %q", tt.in, body, uni, tt.body, tt.uni)
			}
		})
	}
}

func TestMatchQuery(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"identifier", "ParseModelRef", `"parsemodelref"`},
		{"snake case", "next_run_at", `"next_run_at"`},
		{"several words add their phrase, stopwords dropped", "rotate the signing key",
			`"rotate the signing key" OR "rotate" OR "signing" OR "key"`},
		{"only stopwords are kept", "the", `"the"`},
		{"two cjk characters", "设备", `"设备"`},
		{"cjk run adds its phrase", "成语接龙", `"成语 语接 接龙" OR "成语" OR "语接" OR "接龙"`},
		{"one cjk character", "设", `"设"`},
		{"syntax is quoted away", `a-b:c* NOT "x"`, `"a b c not x" OR "b" OR "c" OR "not" OR "x"`},
		{"nothing to search", " -:* ", ""},
		{"mixed", "用Docker部署", `"用" OR "部署" OR "docker"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchQuery(tt.in); got != tt.want {
				t.Errorf("MatchQuery(%q) = %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzMatchQuery: every term is a complete FTS5 string. The store's tests
// run such queries against real FTS5.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{"ParseModelRef", `"""`, "成语接龙 OR x", "a\x00b", "NEAR(a b)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		m := MatchQuery(q)
		if m == "" {
			return
		}
		for _, term := range strings.Split(m, " OR ") {
			inner := strings.TrimSuffix(strings.TrimPrefix(term, `"`), `"`)
			if len(term) < 2 || term[0] != '"' || term[len(term)-1] != '"' || strings.Count(inner, `"`)%2 != 0 {
				t.Fatalf("MatchQuery(%q): term %q is not one quoted string", q, term)
			}
		}
	})
}
