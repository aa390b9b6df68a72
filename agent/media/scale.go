package media

import (
	"image"
	"image/draw"
)

// Scaling down by area averaging: every destination pixel is the mean of
// the source area it covers, fractional edges weighted. For shrinking
// that is the right filter (nothing is skipped, so one-pixel text strokes
// survive as grey rather than vanishing), and it runs one source row at a
// time: x/image/draw's kernel scalers keep a float64 buffer of the
// destination's width by the source's height — 90 MB for a 2880×1800
// screenshot scaled to 1568 px — where this keeps two rows.

// tap is one source column's share of a destination column.
type tap struct {
	src    int
	weight float32
}

// taps spreads n source pixels over m ≤ n destination pixels: for each
// destination pixel, the source pixels it covers and their coverage, in
// source pixels (they sum to n/m).
func taps(n, m int) [][]tap {
	out := make([][]tap, m)
	scale := float64(n) / float64(m)
	for d := range m {
		lo, hi := float64(d)*scale, float64(d+1)*scale
		for s := int(lo); s < n && float64(s) < hi; s++ {
			w := min(hi, float64(s+1)) - max(lo, float64(s))
			if w > 0 {
				out[d] = append(out[d], tap{src: s, weight: float32(w)})
			}
		}
	}
	return out
}

// shrink returns src scaled down to w×h (each no larger than src's) as
// premultiplied RGBA.
func shrink(src image.Image, w, h int) *image.RGBA {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	cols, rows := taps(sw, w), taps(sh, h)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// line holds one source row as premultiplied RGBA: image/draw's fast
	// paths convert YCbCr, NRGBA, Gray and paletted rows into it.
	line := image.NewRGBA(image.Rect(0, 0, sw, 1))
	across := make([]float32, 4*w) // one source row, shrunk across
	acc := make([]float32, 4*w)    // the destination row being summed
	norm := float32(sw) / float32(w) * float32(sh) / float32(h)
	for y, ty := range rows {
		clear(acc)
		for _, t := range ty {
			draw.Draw(line, line.Bounds(), src, image.Pt(sb.Min.X, sb.Min.Y+t.src), draw.Src)
			shrinkRow(across, line.Pix, cols)
			for i, v := range across {
				acc[i] += v * t.weight
			}
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for i, v := range acc {
			out[i] = uint8(min(v/norm+0.5, 255))
		}
	}
	return dst
}

// shrinkRow sums each destination column's taps of one RGBA source row.
func shrinkRow(out []float32, pix []uint8, cols [][]tap) {
	for x, tx := range cols {
		var r, g, b, a float32
		for _, t := range tx {
			p := pix[4*t.src : 4*t.src+4 : 4*t.src+4]
			r += float32(p[0]) * t.weight
			g += float32(p[1]) * t.weight
			b += float32(p[2]) * t.weight
			a += float32(p[3]) * t.weight
		}
		out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = r, g, b, a
	}
}
