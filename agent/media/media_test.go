package media_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"testing"

	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/agent/media/mediatest"
)

func decodeConfig(t *testing.T, data []byte) (image.Config, string) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the prepared image does not decode: %v", err)
	}
	return cfg, format
}

// TestPrepareKeepsWhatFits: a PNG or JPEG within the limits goes as it is,
// byte for byte, hashed.
func TestPrepareKeepsWhatFits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data []byte
		mime string
	}{
		{"shot.png", mediatest.PNG(800, 600), "image/png"},
		{"photo.jpg", mediatest.JPEG(1200, 900), "image/jpeg"},
	} {
		img, err := media.Prepare(tc.data, tc.name, media.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if img.MIME != tc.mime || !bytes.Equal(img.Data, tc.data) || img.Name != tc.name || len(img.SHA256) != 64 {
			t.Errorf("%s: got %s, %d bytes, name %q, hash %q", tc.name, img.MIME, len(img.Data), img.Name, img.SHA256)
		}
	}
}

// TestPrepareScalesDown: a screenshot larger than MaxEdge is scaled to it
// on its longer side, keeping the aspect ratio, and stays a PNG.
func TestPrepareScalesDown(t *testing.T) {
	t.Parallel()
	img, err := media.Prepare(mediatest.PNG(3000, 1500), "wide.png", media.Limits{MaxEdge: 1000})
	if err != nil {
		t.Fatal(err)
	}
	cfg, format := decodeConfig(t, img.Data)
	if format != "png" || img.MIME != "image/png" || cfg.Width != 1000 || cfg.Height != 500 || img.Width != 1000 || img.Height != 500 {
		t.Errorf("got %s %d×%d (image says %d×%d), want png 1000×500", format, cfg.Width, cfg.Height, img.Width, img.Height)
	}
	tall, err := media.Prepare(mediatest.JPEG(600, 2400), "tall.jpg", media.Limits{MaxEdge: 1200})
	if err != nil {
		t.Fatal(err)
	}
	if cfg, format := decodeConfig(t, tall.Data); format != "jpeg" || cfg.Width != 300 || cfg.Height != 1200 {
		t.Errorf("tall jpeg became %s %d×%d, want jpeg 300×1200", format, cfg.Width, cfg.Height)
	}
}

// TestPrepareReencodes: formats models do not all take (GIF) become PNG.
func TestPrepareReencodes(t *testing.T) {
	t.Parallel()
	img, err := media.Prepare(mediatest.GIF(64, 48), "anim.gif", media.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, format := decodeConfig(t, img.Data); format != "png" || img.MIME != "image/png" {
		t.Errorf("gif became %s (%s)", format, img.MIME)
	}
}

// TestPrepareFallsBackToJPEG: a PNG too heavy for MaxBytes once scaled is
// sent as a JPEG, transparency flattened onto white.
func TestPrepareFallsBackToJPEG(t *testing.T) {
	t.Parallel()
	// Noise, so that PNG cannot compress it; the left half transparent.
	src := image.NewNRGBA(image.Rect(0, 0, 400, 400))
	rng := rand.New(rand.NewPCG(3, 4))
	for y := range 400 {
		for x := range 400 {
			a := uint8(255)
			if x < 200 {
				a = 0
			}
			src.SetNRGBA(x, y, color.NRGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: 200, A: a})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	img, err := media.Prepare(append([]byte(nil), data...), "clear.png", media.Limits{MaxEdge: 200, MaxBytes: 40_000})
	if err != nil {
		t.Fatal(err)
	}
	if img.MIME != "image/jpeg" {
		t.Fatalf("got %s, want a JPEG", img.MIME)
	}
	dec, err := jpeg.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := dec.At(50, 100).RGBA(); r < 0xf000 || g < 0xf000 || b < 0xf000 {
		t.Errorf("transparent pixels became %x,%x,%x, want white", r, g, b)
	}
}

// pngHeader is a valid PNG signature and IHDR claiming w×h, and nothing
// else: what a decompression bomb's first bytes look like.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// TestPrepareRefuses: each kind of bad input is refused with its own
// error, and nothing huge is ever decoded.
func TestPrepareRefuses(t *testing.T) {
	t.Parallel()
	full := mediatest.PNG(200, 200)
	for _, tc := range []struct {
		name string
		data []byte
		lim  media.Limits
		want error
	}{
		{"notes.txt", []byte("BMW service notes: oil change due"), media.Limits{}, media.ErrNotImage},
		{"doc.pdf", []byte("%PDF-1.7\n..."), media.Limits{}, media.ErrNotImage},
		{"IMG_0001.HEIC", append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 64)...), media.Limits{}, media.ErrUnsupported},
		{"logo.svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`), media.Limits{}, media.ErrUnsupported},
		{"bomb.png", pngHeader(100_000, 100_000), media.Limits{}, media.ErrTooManyPixels},
		{"big.png", full, media.Limits{MaxPixels: 100 * 100}, media.ErrTooManyPixels},
		{"cut.png", full[:len(full)/2], media.Limits{}, media.ErrCorrupt},
		{"junk.jpg", []byte("\xff\xd8\xff\xe0 this is no jpeg at all"), media.Limits{}, media.ErrCorrupt},
	} {
		_, err := media.Prepare(tc.data, tc.name, tc.lim)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data []byte
		want media.Format
	}{
		{"x", mediatest.PNG(2, 2), media.PNG},
		{"x.txt", mediatest.JPEG(2, 2), media.JPEG}, // content wins over the name
		{"x", mediatest.GIF(2, 2), media.GIF},
		{"x", []byte("II*\x00rest"), media.TIFF},
		{"x", append([]byte("\x00\x00\x00\x1cftypavif"), make([]byte, 16)...), media.AVIF},
		{"x.svg", []byte("<svg/>"), media.SVG},
		{"x.png", []byte("just text"), ""},
		{"x", []byte("BM but not a bitmap, just a line of text"), ""},
	} {
		if got := media.Sniff(tc.name, tc.data); got != tc.want {
			t.Errorf("Sniff(%q, %.12q) = %q, want %q", tc.name, tc.data, got, tc.want)
		}
	}
}
