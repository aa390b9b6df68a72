package secret

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct{ secret, want string }{
		{"", "(not set)"},
		{"short", "****"},
		{"fifteen-chars-x", "****"},
		{"sk-proj-abcdefghijkl9xQ2", "sk-…9xQ2"},
		{"xoxb-1234567890-0987654321-AbCd", "xoxb-…AbCd"},
		{"xapp-1-A012-3456789-abcdef", "xapp-…cdef"},
		{"123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "…Dsaw"},
		{"MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnop", "…mnop"},
		{"ABCD-efghijklmnopqrst", "…qrst"},        // upper case: not a type prefix
		{"abcde-fghijklmnopqrst", "…qrst"},        // prefix too long to be a type marker
		{"ключ-секретный-очень-длинный", "…нный"}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := Mask(tt.secret); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.secret, got, tt.want)
		}
		if tt.secret != "" && len(tt.secret) > 4 && strings.Contains(Mask(tt.secret), tt.secret) {
			t.Errorf("Mask(%q) contains the secret", tt.secret)
		}
	}
}
