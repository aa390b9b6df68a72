package main

import (
	"log/slog"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// blindModel reports whether llm.model cannot see images (llm.vision),
// saying at start what was decided and why: an operator whose model the
// table does not know learns here to set llm.vision: on.
func blindModel(cfg *config.Config, logger *slog.Logger) bool {
	switch cfg.LLM.Vision {
	case config.VisionOn:
		return false
	case config.VisionOff:
		logger.Info("llm.vision is off: pictures people attach are described to the model, not shown")
		return true
	}
	_, model := cfg.LLM.ProviderModel()
	sees, known := llm.SeesImages(model)
	switch {
	case !known:
		logger.Warn("llm.vision is auto and the model is not in the table of models that see images; "+
			"pictures will be described, not shown (set llm.vision: on if it sees them)", "model", cfg.LLM.Model)
	case !sees:
		logger.Info("the model cannot see images: pictures people attach are described to it, not shown", "model", cfg.LLM.Model)
	}
	return !sees
}

// modelSees is llm.FallbackOptions.Sees: llm.model sees unless blind
// (llm.vision, blindModel); a fallback sees when llm.vision is not off and
// the table of models that see lists it — llm.vision: on speaks for
// llm.model alone, and a model the table does not know counts as blind,
// since images would fail its requests.
func modelSees(cfg *config.Config, blind bool) func(name string) bool {
	primary, _ := llm.Canonical(cfg.LLM.Model)
	return func(name string) bool {
		if name == primary {
			return !blind
		}
		if cfg.LLM.Vision == config.VisionOff {
			return false
		}
		_, model, err := llm.SplitModel(name)
		if err != nil {
			return false
		}
		sees, known := llm.SeesImages(model)
		return sees && known
	}
}

// imageLimits are the attachments.image_* keys as agent/media takes them.
func imageLimits(a config.Attachments) media.Limits {
	return media.Limits{MaxEdge: a.ImageEdge, MaxPixels: a.ImageMaxMegapixels * 1_000_000}
}

// attachmentLimits are the attachments.* keys as the core takes them,
// with the transcription of recordings (transcription.go).
func attachmentLimits(a config.Attachments, audio bot.Transcription) bot.Attachments {
	return bot.Attachments{MaxFiles: a.MaxFiles, MaxBytes: int64(a.MaxFileMB) << 20, FileChars: a.FileChars, Images: imageLimits(a), Audio: audio}
}
