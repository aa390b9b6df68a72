// Package media turns pictures people attach and tools return into
// images a model accepts: the type told by content, the pixel count
// bounded before anything is decoded, every image decoded once (a corrupt
// one is refused here, not by the provider, which would fail the whole
// turn), and scaled down and re-encoded when larger than models take.
package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"image/draw"

	"github.com/parleybot/parley/agent/llm"
)

// Defaults of Limits.
const (
	// DefaultMaxEdge: Anthropic scales anything with a longer side down
	// to about this itself (past ~1.15 megapixels), and OpenAI's high
	// detail ends at 768 px on the short side; larger only costs upload
	// and latency.
	DefaultMaxEdge = 1568
	// DefaultMaxPixels bounds what is decoded at all: 40 megapixels is a
	// 160 MB bitmap. Phone photos are 12–48 MP, screenshots under 15.
	DefaultMaxPixels = 40_000_000
	// DefaultMaxBytes is Anthropic's limit on one image sent through the
	// API (5 MB); OpenAI takes 20 MB.
	DefaultMaxBytes = 5 << 20
)

// Limits bound the images Parley decodes and sends. Zero fields take the
// defaults.
type Limits struct {
	MaxEdge   int // the longest side sent, in pixels; larger are scaled down
	MaxPixels int // width × height decoded at most; larger are refused unread
	MaxBytes  int // the largest encoded image sent
}

func (l Limits) withDefaults() Limits {
	if l.MaxEdge <= 0 {
		l.MaxEdge = DefaultMaxEdge
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Why Prepare refuses a file. The error's text says it for people.
var (
	// ErrNotImage: the content is no picture at all (a PDF, a text).
	ErrNotImage = errors.New("not an image")
	// ErrUnsupported: a picture in a format Parley cannot read (HEIC,
	// AVIF, SVG, ICO).
	ErrUnsupported = errors.New("unsupported image format")
	// ErrTooManyPixels: more pixels than Limits.MaxPixels; nothing was
	// decoded.
	ErrTooManyPixels = errors.New("too many pixels")
	// ErrCorrupt: the picture's bytes do not decode.
	ErrCorrupt = errors.New("the image is damaged")
	// ErrTooLarge: even scaled down and re-encoded, more bytes than
	// Limits.MaxBytes.
	ErrTooLarge = errors.New("the image is too large")
)

// advice says what to send instead of an unsupported format.
func advice(f Format) string {
	switch f {
	case HEIC:
		return "HEIC photos cannot be read; send it as JPEG (on an iPhone: Settings → Camera → Formats → Most Compatible), or as a screenshot"
	case SVG:
		return "SVG drawings cannot be shown to the model; send a PNG of it"
	}
	return fmt.Sprintf("%s images cannot be read; send a PNG or JPEG", string(f))
}

// Prepare checks data as a picture and returns it as an image a model
// accepts: PNG, JPEG and WebP within the limits go as they are; larger
// ones are scaled down to MaxEdge, a JPEG whose EXIF says to turn it is
// turned, and other formats (GIF, BMP, TIFF) re-encoded — as PNG when the
// source was lossless, as JPEG otherwise or when a PNG would pass
// MaxBytes. name is kept on the image for
// placeholders. Errors wrap ErrNotImage, ErrUnsupported, ErrTooManyPixels,
// ErrCorrupt or ErrTooLarge.
func Prepare(data []byte, name string, lim Limits) (llm.Image, error) {
	lim = lim.withDefaults()
	f := Sniff(name, data)
	if f == "" {
		return llm.Image{}, ErrNotImage
	}
	c := codecOf(f)
	if c == nil {
		return llm.Image{}, fmt.Errorf("%w: %s", ErrUnsupported, advice(f))
	}
	cfg, err := c.config(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, fmt.Errorf("%w: its %s header does not read: %w", ErrCorrupt, f, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return llm.Image{}, fmt.Errorf("%w: its %s header says %d×%d", ErrCorrupt, f, cfg.Width, cfg.Height)
	}
	// Width × Height in int64: a forged header may claim 2³¹ on each side.
	if px := int64(cfg.Width) * int64(cfg.Height); px > int64(lim.MaxPixels) {
		return llm.Image{}, fmt.Errorf("%w: %d×%d is %.0f megapixels, the limit is %.0f",
			ErrTooManyPixels, cfg.Width, cfg.Height, float64(px)/1e6, float64(lim.MaxPixels)/1e6)
	}
	// Decoded even when sent as it is: a truncated file must be refused
	// here, with a reason, not by the provider in the middle of a turn.
	src, err := c.decode(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	b := src.Bounds()
	img := llm.Image{Name: name, Width: b.Dx(), Height: b.Dy()}
	turn := 1
	if f == JPEG {
		turn = jpegOrientation(data) // orient.go
	}
	keep := (f == PNG || f == JPEG || f == WebP) && turn == 1 && max(b.Dx(), b.Dy()) <= lim.MaxEdge && len(data) <= lim.MaxBytes
	if keep {
		img.MIME, img.Data = mimeOf(f), data
		return llm.ImageHash(img), nil
	}
	// Turned after the scaling: the smaller image is the cheaper to turn.
	scaled := orient(fit(src, lim.MaxEdge), turn)
	sb := scaled.Bounds()
	img.Width, img.Height = sb.Dx(), sb.Dy()
	lossless := f == PNG || f == GIF || f == BMP || f == TIFF
	img.MIME, img.Data, err = encode(scaled, lossless, lim.MaxBytes)
	if err != nil {
		return llm.Image{}, err
	}
	return llm.ImageHash(img), nil
}

// fit scales src down so its longer side is at most edge (shrink); src
// itself when it already fits.
func fit(src image.Image, edge int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= edge {
		return src
	}
	if w >= h {
		w, h = edge, max(1, h*edge/w)
	} else {
		w, h = max(1, w*edge/h), edge
	}
	return shrink(src, w, h)
}

// JPEG qualities tried in turn until the image fits.
const (
	jpegQuality = 85
	jpegSmaller = 60
)

// encode writes img as PNG when lossless and it fits in maxBytes, else as
// JPEG, at a lower quality when the first does not fit.
func encode(img image.Image, lossless bool, maxBytes int) (string, []byte, error) {
	var buf bytes.Buffer
	if lossless {
		if err := png.Encode(&buf, img); err != nil {
			return "", nil, fmt.Errorf("encode png: %w", err)
		}
		if buf.Len() <= maxBytes {
			return "image/png", buf.Bytes(), nil
		}
	}
	flat := onWhite(img)
	for _, q := range []int{jpegQuality, jpegSmaller} {
		buf.Reset()
		if err := jpeg.Encode(&buf, flat, &jpeg.Options{Quality: q}); err != nil {
			return "", nil, fmt.Errorf("encode jpeg: %w", err)
		}
		if buf.Len() <= maxBytes {
			return "image/jpeg", buf.Bytes(), nil
		}
	}
	return "", nil, fmt.Errorf("%w: %d bytes as a JPEG, the limit is %d", ErrTooLarge, buf.Len(), maxBytes)
}

// onWhite flattens transparency onto white for JPEG, which has no alpha:
// encoded as is, transparent pixels turn black.
func onWhite(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, image.White, image.Point{}, draw.Src)
	draw.Draw(dst, b, img, b.Min, draw.Over)
	return dst
}
