// Package mediatest makes pictures for tests and benchmarks: small ones
// of each format, and a screenshot of a realistic size and weight.
package mediatest

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
)

// Pattern is a w×h picture with something in it (a gradient and a few
// bars), so scaling and encoding have work to do.
func Pattern(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: uint8(x * 255 / max(w, 1)), G: uint8(y * 255 / max(h, 1)), B: 128, A: 255}
			if (x/16)%5 == 0 {
				c = color.RGBA{A: 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// PNG is Pattern(w, h) as a PNG.
func PNG(w, h int) []byte { return encodePNG(Pattern(w, h)) }

// JPEG is Pattern(w, h) as a JPEG.
func JPEG(w, h int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, Pattern(w, h), &jpeg.Options{Quality: 90}); err != nil {
		panic(err) // encoding into memory cannot fail
	}
	return buf.Bytes()
}

// GIF is Pattern(w, h) as a GIF.
func GIF(w, h int) []byte {
	var buf bytes.Buffer
	if err := gif.Encode(&buf, Pattern(w, h), nil); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Screenshot is a 2880×1800 PNG (a Retina laptop's screen) of about 4 MB:
// flat panels, lines of "text", and a photo-like noisy area that PNG
// cannot compress, as in a screenshot of a web page with a picture on it.
func Screenshot() []byte {
	const w, h = 2880, 1800
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			var c color.RGBA
			switch {
			case y < 80: // a title bar
				c = color.RGBA{R: 40, G: 44, B: 52, A: 255}
			case x < 400: // a sidebar
				c = color.RGBA{R: 245, G: 245, B: 247, A: 255}
			case x >= 1300 && x < 2750 && y >= 260 && y < 1100: // a photo
				v := uint8(rng.IntN(256))
				c = color.RGBA{R: v, G: uint8(rng.IntN(256)), B: uint8(rng.IntN(256)), A: 255}
			case (y/24)%2 == 0 && (x/9)%7 != 0 && rng.IntN(3) > 0: // "text"
				c = color.RGBA{R: 30, G: 30, B: 30, A: 255}
			default:
				c = color.RGBA{R: 255, G: 255, B: 255, A: 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return encodePNG(img)
}

func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
