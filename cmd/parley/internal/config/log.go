package config

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Log configures Parley's own log (stderr).
type Log struct {
	// Level is the least severe record written: debug, info (the
	// default), warn or error. The terminal chat writes warnings and
	// errors only, unless the level is debug, so that the log does not
	// interleave with the conversation.
	Level string `mapstructure:"level"`
	// Format is text (the default: key=value lines) or json (one object
	// per line, for a log collector).
	Format string `mapstructure:"format"`
}

// Log formats.
const (
	LogText = "text"
	LogJSON = "json"
)

func defaultLog() Log { return Log{Level: "info", Format: LogText} }

// SlogLevel is Level as a slog.Level. The configuration is validated when
// loaded, so it parses.
func (l Log) SlogLevel() slog.Level {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(l.Level))
	return lv
}

// Logger is a logger writing to w as configured, at SlogLevel or at
// least at floor, whichever is more severe (the terminal chat's warn),
// unless the level asks for debug.
func (l Log) Logger(w io.Writer, floor slog.Level) *slog.Logger {
	level := l.SlogLevel()
	if level > slog.LevelDebug && floor > level {
		level = floor
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(l.Format, LogJSON) {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// validate checks the log.* keys.
func (l *Log) validate() []string {
	var p []string
	l.Level, l.Format = strings.ToLower(strings.TrimSpace(l.Level)), strings.ToLower(strings.TrimSpace(l.Format))
	switch l.Level {
	case "debug", "info", "warn", "error":
	default:
		p = append(p, fmt.Sprintf("log.level: %q is not valid; want debug, info, warn or error", Quiet(l.Level)))
	}
	switch l.Format {
	case LogText, LogJSON:
	default:
		p = append(p, fmt.Sprintf("log.format: %q is not valid; want text or json", Quiet(l.Format)))
	}
	return p
}
