package config

import "testing"

func TestQuietAndRedactURL(t *testing.T) {
	quiet := []struct {
		in     string
		secret bool
	}{
		{"sk-proj-abcdefghijklmnop1234", true},
		{"xoxb-123456789012-abcdefghij", true},
		{"123456789:AAH-abcdefghijklmnopqrstuvwxyz01234", true},
		{"MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123", true},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"127.0.0.1:8080", false},
		{"sockets", false},
		{"openai/gpt-4o-mini", false},
		{"telegram:42", false},
		{"my-mcp-server", false},
		{"irc:42", false},
		{"", false},
	}
	for _, tt := range quiet {
		if got := looksSecret(tt.in); got != tt.secret {
			t.Errorf("looksSecret(%q) = %v, want %v", tt.in, got, tt.secret)
		}
	}
	urls := []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://user:PASSWORD@host:11434/v1", "http://redacted@host:11434/v1"},
		{"https://host/v1?api_key=sk-abc&model=x", "https://host/v1?api_key=redacted&model=x"},
		{"sk-proj-abcdefghijklmnop1234", hiddenValue},
		{"not a url", "not a url"},
		{"postgres://parley:PASSWORD@/parley?host=/run/postgresql", "postgres://redacted@/parley?host=%2Frun%2Fpostgresql"},
		{"postgres://db.internal/parley?password=PASSWORD&sslmode=require", "postgres://db.internal/parley?password=redacted&sslmode=require"},
	}
	for _, tt := range urls {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
