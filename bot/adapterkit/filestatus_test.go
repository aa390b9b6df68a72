package adapterkit

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
)

func TestFileHostStatus(t *testing.T) {
	refused := chat.TokenRefused("example refused the token")
	host := FileHost{Platform: "example", Name: "Example's CDN", Wait: 2 * time.Second, Unauthorized: refused,
		Forbidden: "share the file", Gone: "deleted"}
	f := chat.File{ID: "F1", Name: "a.pdf", URL: "https://files.example/secret-token/a.pdf"}
	resp := func(code int, retry string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		if retry != "" {
			r.Header.Set("Retry-After", retry)
		}
		return r
	}
	tests := []struct {
		name string
		h    FileHost
		resp *http.Response
		want string // "" for nil
		wait time.Duration
		auth bool
	}{
		{"ok", host, resp(200, ""), "", 0, false},
		{"429 with a wait", host, resp(429, "7"), "example: download file \"a.pdf\" (F1): HTTP 429", 7 * time.Second, false},
		{"429 without", host, resp(429, ""), "HTTP 429", 2 * time.Second, false},
		{"401", host, resp(401, ""), "example refused the token (HTTP 401 Unauthorized)", 0, true},
		{"401 where nothing is special", FileHost{Platform: "example"}, resp(401, ""), "unexpected HTTP 401", 0, false},
		{"403 with why", host, resp(403, ""), "refused (HTTP 403 Forbidden): share the file", 0, false},
		{"403", FileHost{Platform: "example"}, resp(403, ""), "refused (HTTP 403 Forbidden)", 0, false},
		{"404", host, resp(404, ""), "is gone (HTTP 404 Not Found): deleted", 0, false},
		{"410", host, resp(410, ""), "is gone (HTTP 410 Gone): deleted", 0, false},
		{"502", host, resp(502, ""), "Example's CDN failed serving", 0, false},
		{"418", host, resp(418, ""), "unexpected HTTP 418", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.h.Status(f, tt.resp)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Status = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret-token") {
				t.Fatalf("Status = %v, want it to say %q and no URL", err, tt.want)
			}
			if d, ok := chat.RetryAfter(err); ok != (tt.wait > 0) || d != tt.wait {
				t.Errorf("RetryAfter = %v, %v; want %v", d, ok, tt.wait)
			}
			if errors.Is(err, chat.ErrAuth) != tt.auth {
				t.Errorf("errors.Is(ErrAuth) = %v, want %v", !tt.auth, tt.auth)
			}
		})
	}
}
