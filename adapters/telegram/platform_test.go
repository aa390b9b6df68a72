package telegram

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/internal/secret"
)

// problems collects what Validate reports.
type problems []string

func (p *problems) Add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }
func (p *problems) Require(key, value, when string) {
	if value == "" {
		p.Add("%s is required when %s", key, when)
	}
}
func (p *problems) URL(string, string, string) {}

// TestTokenShape: a token not shaped as @BotFather gives it is refused
// before any call, and never quoted back.
func TestTokenShape(t *testing.T) {
	tests := []struct {
		token string
		ok    bool
	}{
		{"123456789:AAH-0aBcDeFgHiJkLmNoPqRsTuVwXyZ_12345", true},
		{"1:x", true},
		{"bot123456789:AAHsecret", false},
		{"xoxb-1-2-secret", false},
		{"123456789 AAHsecret", false},
		{`"123456789:AAHsecret"`, false},
		{":AAHsecret", false},
		{"123456789:", false},
	}
	for _, tt := range tests {
		s := &Settings{On: true, Mode: ModePolling, APIURL: "https://api.telegram.org", Token: secret.Secret(tt.token)}
		var p problems
		s.Validate(&p)
		if got := len(p) == 0; got != tt.ok {
			t.Errorf("token %q: problems %q, want ok=%v", tt.token, p, tt.ok)
		}
		for _, msg := range p {
			if strings.Contains(msg, tt.token) {
				t.Errorf("the token was quoted back: %q", msg)
			}
		}
	}
}
