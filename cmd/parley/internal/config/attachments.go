package config

import "fmt"

// Values of llm.vision.
const (
	// VisionAuto decides from the table of known models (llm.SeesImages);
	// a model it does not know counts as blind.
	VisionAuto = "auto"
	VisionOn   = "on"
	VisionOff  = "off"
)

// Attachments bounds what Parley reads of the files people attach to
// messages (docs/attachments.md): pictures go to the model as images,
// text files (plain, Markdown, code, CSV, JSON, HTML, PDF) as text.
type Attachments struct {
	// MaxFiles are read per message; the rest are named as not read.
	MaxFiles int `mapstructure:"max_files"`
	// MaxFileMB is the most downloaded of one file, in MiB (Telegram lets
	// bots download 20 at most).
	MaxFileMB int `mapstructure:"max_file_mb"`
	// FileChars is the most text taken from one file; the cut is said.
	FileChars int `mapstructure:"file_chars"`
	// ImageEdge is the longest side of a picture sent to the model, in
	// pixels; larger ones are scaled down.
	ImageEdge int `mapstructure:"image_edge"`
	// ImageMaxMegapixels refuses larger pictures before decoding them.
	ImageMaxMegapixels int `mapstructure:"image_max_megapixels"`
}

func defaultAttachments() Attachments {
	return Attachments{MaxFiles: 10, MaxFileMB: 20, FileChars: 20000, ImageEdge: 1568, ImageMaxMegapixels: 40}
}

// validate checks the attachments.* keys and llm.vision.
func (a *Attachments) validate(vision string) []string {
	p := outOfRange(
		bound[int]{"attachments.max_files", a.MaxFiles, 1, 100},
		bound[int]{"attachments.max_file_mb", a.MaxFileMB, 1, 100},
		bound[int]{"attachments.file_chars", a.FileChars, 1000, 1_000_000},
		bound[int]{"attachments.image_edge", a.ImageEdge, 256, 8000},
		bound[int]{"attachments.image_max_megapixels", a.ImageMaxMegapixels, 1, 200},
	)
	switch vision {
	case VisionAuto, VisionOn, VisionOff:
	default:
		p = append(p, fmt.Sprintf("llm.vision: %q is not valid; want auto, on or off", Quiet(vision)))
	}
	return p
}
