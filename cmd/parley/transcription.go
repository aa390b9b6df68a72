package main

import (
	"context"
	le "encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/transcribe"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// transcription is transcription.* as the core takes it: a client of the
// model's provider (its base URL, key, headers and timeout, as its chat
// models have them), the limit, the price per minute, and, with
// transcription.keep, where the audio is kept. Off (no model), the zero
// value.
func transcription(cfg *config.Config, logger *slog.Logger) bot.Transcription {
	t := cfg.Transcription
	if t.Model == "" {
		return bot.Transcription{}
	}
	provider, _, _ := strings.Cut(t.Model, "/")
	s, _ := cfg.Endpoint(provider) // configured and of kind openai: checked by Load and RequireLLM
	out := bot.Transcription{
		Transcriber: transcribe.New(transcribe.Config{BaseURL: s.BaseURL, APIKey: s.Key.Reveal(), Headers: reveal(s.Headers), Timeout: s.Timeout}),
		Model:       t.Model,
		MaxDuration: time.Duration(t.MaxMinutes) * time.Minute,
	}
	out.Price, out.Priced = cfg.ModelTable().Price(t.Model)
	if !out.Priced {
		logger.Info("transcription.model has no known price: its minutes are counted unpriced (set providers.<name>.prices.<model>.per_minute)", "model", t.Model)
	}
	if t.Keep {
		out.Keep = audioKeeper(filepath.Join(cfg.DataDir, "audio"), time.Now)
	}
	return out
}

// audioKeeper keeps recordings under dir, as <dir>/<UTC date>/<message
// key>-<file id><ext>, readable by Parley's user alone: files beside the
// database rather than rows in it, so that the operator can listen to,
// back up or delete them with ordinary tools, and the database stays the
// size of the conversations.
func audioKeeper(dir string, now func() time.Time) func(ctx context.Context, m chat.Message, f chat.File, data []byte) error {
	return func(_ context.Context, m chat.Message, f chat.File, data []byte) error {
		day := filepath.Join(dir, now().UTC().Format(time.DateOnly))
		if err := os.MkdirAll(day, 0o700); err != nil {
			return fmt.Errorf("keep audio: %w", err)
		}
		name := safeName(m.Key) + "-" + safeName(f.ID) + audioExt(f)
		if err := os.WriteFile(filepath.Join(day, name), data, 0o600); err != nil {
			return fmt.Errorf("keep audio: %w", err)
		}
		return nil
	}
}

// safeName is s as one file name: letters, digits, '-' and '_' kept,
// anything else '_', at most 100 bytes.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// audioExt is the extension of f's name, or one from its type.
func audioExt(f chat.File) string {
	if ext := strings.ToLower(filepath.Ext(f.Name)); ext != "" && len(ext) <= 6 && safeName(ext[1:]) == ext[1:] {
		return ext
	}
	if ext := transcribe.Extension(f.MIME); ext != "" {
		return ext
	}
	return ".audio"
}

// transcriptionCheck is doctor's: off, or a second of silence sent to
// the endpoint, which must answer (with no words, or a few it imagined).
func transcriptionCheck(ctx context.Context, cfg *config.Config) (string, error) {
	m := cfg.Transcription.Model
	if m == "" {
		return "off (transcription.model is empty): voice notes and audio are answered as not read", nil
	}
	if err := cfg.RequireLLM(); err != nil {
		return "", err
	}
	t := transcription(cfg, slog.New(slog.DiscardHandler))
	_, model, _ := strings.Cut(m, "/")
	_, err := t.Transcriber.Transcribe(ctx, model, transcribe.Audio{Name: "doctor.wav", MIME: "audio/wav", Data: silence(time.Second)})
	if err != nil && !errors.Is(err, transcribe.ErrEmpty) {
		return "", fmt.Errorf("transcription.model %s could not transcribe a second of silence: %w", m, err)
	}
	return fmt.Sprintf("transcription.model %s answered; recordings of up to %d minutes are transcribed", m, cfg.Transcription.MaxMinutes), nil
}

// silence is d of silence as a WAV file: 16 kHz, mono, 16-bit PCM.
func silence(d time.Duration) []byte {
	const rate = 16000
	samples := int(d.Seconds() * rate)
	b := make([]byte, 44+2*samples)
	copy(b, "RIFF")
	le.LittleEndian.PutUint32(b[4:], uint32(36+2*samples))
	copy(b[8:], "WAVEfmt ")
	le.LittleEndian.PutUint32(b[16:], 16) // the fmt chunk's size
	le.LittleEndian.PutUint16(b[20:], 1)  // PCM
	le.LittleEndian.PutUint16(b[22:], 1)  // mono
	le.LittleEndian.PutUint32(b[24:], rate)
	le.LittleEndian.PutUint32(b[28:], rate*2) // bytes a second
	le.LittleEndian.PutUint16(b[32:], 2)      // bytes a frame
	le.LittleEndian.PutUint16(b[34:], 16)     // bits a sample
	copy(b[36:], "data")
	le.LittleEndian.PutUint32(b[40:], uint32(2*samples))
	return b
}
