package media

import (
	"bytes"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// Format is an image format Sniff can tell by content.
type Format string

// Formats Parley reads (and scales down when needed)…
const (
	PNG  Format = "png"
	JPEG Format = "jpeg"
	GIF  Format = "gif"
	WebP Format = "webp"
	BMP  Format = "bmp"
	TIFF Format = "tiff"
)

// …and pictures it can name but not read, so a person is told what to
// send instead rather than that their file is not a picture.
const (
	HEIC Format = "heic" // iPhone photos
	AVIF Format = "avif"
	SVG  Format = "svg"
	ICO  Format = "ico"
)

// codec reads one format: its header alone, or the whole image.
type codec struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// codecOf is nil for the formats Parley cannot read. Each package is
// called directly rather than through image.Decode, so which decoder runs
// follows from what Sniff saw, not from whatever formats happen to be
// registered in the binary.
func codecOf(f Format) *codec {
	switch f {
	case PNG:
		return &codec{png.DecodeConfig, png.Decode}
	case JPEG:
		return &codec{jpeg.DecodeConfig, jpeg.Decode}
	case GIF:
		return &codec{gif.DecodeConfig, gif.Decode} // the first frame
	case WebP:
		return &codec{webp.DecodeConfig, webp.Decode}
	case BMP:
		return &codec{bmp.DecodeConfig, bmp.Decode}
	case TIFF:
		return &codec{tiff.DecodeConfig, tiff.Decode}
	}
	return nil
}

// Sniff tells the picture data holds by its content, never by its name or
// declared type (both come from the sender); "" when it is no picture.
// name is only a hint for SVG, which is XML text like any other.
func Sniff(name string, data []byte) Format {
	switch http.DetectContentType(data) {
	case "image/png":
		return PNG
	case "image/jpeg":
		return JPEG
	case "image/gif":
		return GIF
	case "image/webp":
		return WebP
	case "image/x-icon":
		return ICO
	case "image/bmp":
		// The BMP signature is two letters, "BM": a text file that starts
		// with them ("BMW…") is no bitmap. A header that parses is.
		if _, err := bmp.DecodeConfig(bytes.NewReader(data)); err != nil {
			return ""
		}
		return BMP
	}
	switch {
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return TIFF
	case isFtyp(data, "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"):
		return HEIC
	case isFtyp(data, "avif", "avis"):
		return AVIF
	case isSVG(name, data):
		return SVG
	}
	return ""
}

// isFtyp reports whether data is an ISO media file (HEIF, AVIF) whose
// major brand is one of brands: "....ftyp<brand>".
func isFtyp(data []byte, brands ...string) bool {
	if len(data) < 12 || string(data[4:8]) != "ftyp" {
		return false
	}
	major := string(data[8:12])
	for _, b := range brands {
		if major == b {
			return true
		}
	}
	return false
}

// isSVG: an .svg name, or an <svg element near the start.
func isSVG(name string, data []byte) bool {
	if strings.EqualFold(filepath.Ext(name), ".svg") {
		return true
	}
	head := data[:min(len(data), 1024)]
	return bytes.Contains(bytes.ToLower(head), []byte("<svg"))
}

// mimeOf is the media type a model is told for f.
func mimeOf(f Format) string {
	return "image/" + string(f)
}
