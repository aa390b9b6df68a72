package config

import (
	"fmt"
	"strings"
)

// Transcription turns voice notes and audio files into text for the model
// (transcription.*, docs/attachments.md#voice-notes-and-audio).
type Transcription struct {
	// Model is "provider/model" of a speech-to-text model behind an
	// OpenAI-compatible /audio/transcriptions endpoint (OpenAI's
	// whisper-1, a whisper server). Empty (the default): off, and audio
	// gets the answer that Parley cannot listen to it.
	Model string `mapstructure:"model"`
	// MaxMinutes is the longest recording transcribed; longer ones are
	// refused with an answer saying so, before any download where the
	// platform says the length.
	MaxMinutes int `mapstructure:"max_minutes"`
	// Keep keeps the audio after transcription, under the data directory
	// (audio/<date>/…); off (the default), it is never written to disk.
	Keep bool `mapstructure:"keep"`
}

// DefaultTranscriptionMinutes is transcription.max_minutes' default.
const DefaultTranscriptionMinutes = 10

func defaultTranscription() Transcription {
	return Transcription{MaxMinutes: DefaultTranscriptionMinutes}
}

// validate checks the transcription.* keys. kind is the kind of a
// provider (providerKind), problem what is wrong with naming it
// (providerProblem).
func (t *Transcription) validate(kind func(provider string) string, problem func(provider, name string) string) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }
	if m := t.Model; m != "" {
		provider, model, ok := strings.Cut(m, "/")
		switch {
		case !ok || provider == "" || model == "":
			add("transcription.model: %q must be provider/model, e.g. openai/whisper-1", m)
		case kind(provider) == "":
			p = append(p, "transcription.model: "+problem(provider, m))
		case kind(provider) == KindAnthropic:
			add("transcription.model: the provider %s is of kind anthropic, which has no speech-to-text endpoint; use a provider of kind openai (OpenAI, or a compatible server such as a whisper server)", provider)
		}
	}
	p = append(p, outOfRange(bound[int]{"transcription.max_minutes", t.MaxMinutes, 1, 120})...)
	return p
}
