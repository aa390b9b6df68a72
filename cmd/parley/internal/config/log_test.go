package config

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// TestLog: log.level and log.format pick the records and their shape; the
// terminal chat's floor holds unless debug is asked for; bad values are
// refused by name.
func TestLog(t *testing.T) {
	tests := []struct {
		level, format string
		floor         slog.Level
		logs          []slog.Level // written
		json          bool
	}{
		{"info", "text", slog.LevelDebug, []slog.Level{slog.LevelInfo, slog.LevelWarn, slog.LevelError}, false},
		{"warn", "json", slog.LevelDebug, []slog.Level{slog.LevelWarn, slog.LevelError}, true},
		{"info", "text", slog.LevelWarn, []slog.Level{slog.LevelWarn, slog.LevelError}, false},
		{"debug", "text", slog.LevelWarn, []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError}, false},
		{"ERROR", "JSON", slog.LevelDebug, []slog.Level{slog.LevelError}, true},
	}
	for _, tt := range tests {
		l := Log{Level: tt.level, Format: tt.format}
		if p := l.validate(); len(p) != 0 {
			t.Fatalf("%+v: %q", tt, p)
		}
		var buf bytes.Buffer
		logger := l.Logger(&buf, tt.floor)
		all := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError}
		for _, lv := range all {
			logger.Log(t.Context(), lv, "m")
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != len(tt.logs) {
			t.Fatalf("%+v: %d lines, want %d:\n%s", tt, len(lines), len(tt.logs), buf.String())
		}
		var obj map[string]any
		if isJSON := json.Unmarshal([]byte(lines[0]), &obj) == nil; isJSON != tt.json {
			t.Errorf("%+v: json = %v:\n%s", tt, isJSON, buf.String())
		}
	}
	for _, bad := range []Log{{Level: "verbose", Format: "text"}, {Level: "info", Format: "xml"}} {
		if p := bad.validate(); len(p) != 1 {
			t.Errorf("%+v: problems %q, want one", bad, p)
		}
	}
}
