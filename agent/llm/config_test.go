package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestConfigClient(t *testing.T) {
	own := &http.Client{Timeout: time.Second}
	tests := []struct {
		name string
		cfg  Config
		want func(*http.Client) bool
	}{
		{"the caller's client", Config{HTTPClient: own}, func(c *http.Client) bool { return c == own }},
		{"default: gives up on a silent server", Config{}, func(c *http.Client) bool {
			tr, ok := c.Transport.(*http.Transport)
			return ok && tr != http.DefaultTransport && tr.ResponseHeaderTimeout == 10*time.Minute
		}},
		{"default: keeps a connection per concurrent turn", Config{}, func(c *http.Client) bool {
			tr, ok := c.Transport.(*http.Transport)
			return ok && tr.MaxIdleConnsPerHost >= 64 && tr.MaxIdleConns >= tr.MaxIdleConnsPerHost
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.Client(); !tc.want(got) {
				t.Errorf("Client() = %+v", got)
			}
		})
	}
	if tr, ok := http.DefaultTransport.(*http.Transport); ok && (tr.ResponseHeaderTimeout != 0 || tr.MaxIdleConnsPerHost != 0) {
		t.Error("Client changed http.DefaultTransport")
	}
}
